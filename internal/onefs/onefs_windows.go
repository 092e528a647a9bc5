//go:build windows

package onefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/winfs"
)

// On Windows a tree's other file systems are reached through reparse
// points (junctions and volume mount points, IO_REPARSE_TAG_MOUNT_POINT),
// and its symlinks are reparse points too: every step here opens one name
// relative to an open directory handle without following a reparse point
// (internal/winfs), so a mount point is met as itself, never entered, and
// a symlink is deleted as the link it is. A junction counts as a mount
// point: telling one that leads to another volume from one that leads
// elsewhere on this one would need a path resolved again, and either way
// deleting through it would delete what is not the release's.

// Supported is true where Walk and RemoveAll are implemented.
const Supported = true

// ErrMountPoint is wrapped by the error RemoveAll returns when the tree
// holds a mount point.
var ErrMountPoint = errors.New("mount point inside the tree")

// ErrChanged is wrapped by the error of a walk that found the tree changed
// under it (a file where a directory was listed).
var ErrChanged = errors.New("the tree changed while being walked")

// MountError names a mount point met in a tree (on Windows a junction or
// a volume mount point).
type MountError struct{ Path string }

func (e *MountError) Error() string {
	return e.Path + " is a mount point (a junction or a volume mount point)"
}
func (e *MountError) Unwrap() error { return ErrMountPoint }

// Usage is what Walk found.
type Usage struct {
	// Bytes is the space allocated to everything in the tree, the top
	// included, hard-linked files counted once; zero unless measured.
	Bytes int64
	// Mounts are the junctions and mount points met (relative to the top,
	// in walk order); Walk does not enter them.
	Mounts []string
	// Ops counts the opens made, one per entry.
	Ops int
}

const (
	dirAccess  = windows.FILE_LIST_DIRECTORY | windows.FILE_TRAVERSE
	openExists = windows.FILE_OPEN
)

type walker struct {
	u       Usage
	measure bool
	seen    map[[2]uint64]bool // hard-linked files already counted
}

func (w *walker) count(in winfs.Info) {
	if !w.measure {
		return
	}
	if in.Links > 1 && !in.IsDir() {
		k := [2]uint64{uint64(in.Volume), in.Index}
		if w.seen[k] {
			return
		}
		if w.seen == nil {
			w.seen = map[[2]uint64]bool{}
		}
		w.seen[k] = true
	}
	w.u.Bytes += in.Allocated
}

// walk surveys the directory open as h (rel from the top).
func (w *walker) walk(h windows.Handle, rel string) error {
	entries, err := winfs.Names(h)
	if err != nil {
		return fmt.Errorf("listing %s: %w", rel, err)
	}
	for _, e := range entries {
		if !w.measure && e.Type().IsRegular() {
			continue // only directories (and what may be mounts) matter
		}
		name := path.Join(rel, e.Name())
		w.u.Ops++
		ch, err := winfs.Open(h, e.Name(), windows.FILE_LIST_DIRECTORY, winfs.ShareAll, openExists, 0)
		if err != nil && errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			// A file whose data this user may not read: its attributes still.
			ch, err = winfs.Open(h, e.Name(), 0, winfs.ShareAll, openExists, 0)
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		in, err := winfs.Stat(ch)
		if err == nil {
			switch {
			case in.Mount():
				w.u.Mounts = append(w.u.Mounts, name)
			case in.Reparse():
				w.count(in) // a symlink: the link, never what it names
			case in.IsDir():
				w.count(in)
				err = w.walk(ch, name)
			default:
				w.count(in)
			}
		}
		windows.CloseHandle(ch)
		if err != nil {
			return err
		}
	}
	return nil
}

// Walk surveys the directory open as dir: the junctions and mount points
// in it (not entered) and, when measure is set, the space it occupies. A
// reparse point is never followed.
func Walk(dir *os.File, measure bool) (Usage, error) {
	w := walker{measure: measure}
	h := windows.Handle(dir.Fd())
	if measure {
		if in, err := winfs.Stat(h); err == nil {
			w.count(in)
		}
	}
	err := w.walk(h, ".")
	return w.u, err
}

// WalkAt is only implemented on Linux (callers measure through Walk).
func WalkAt(dirfd int, name string, measure bool, bufs *Buffers) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}

// MeasureOpen is only implemented on Linux.
func MeasureOpen(fd int, top *safeio.Stat, known func(name string) *safeio.Stat, bufs *Buffers) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}

// RemoveAll deletes name, a directory relative to the open directory
// parent, and everything in it, never following a reparse point: a
// symlink inside is deleted as a link, and at a junction or mount point
// it stops with a *MountError (errors.Is ErrMountPoint), having deleted
// what came before (survey with Walk first). Each name is opened relative
// to its directory's handle and deleted through that handle (plain
// deletion: see internal/winfs), so no path is resolved twice. A file
// another process holds open without FILE_SHARE_DELETE (a running
// program, a loaded DLL) cannot be deleted: the error wraps
// ERROR_SHARING_VIOLATION and names it, and what was not reached stays.
func RemoveAll(parent *os.File, name string) (ops int, err error) {
	w := walker{}
	top, err := winfs.Open(windows.Handle(parent.Fd()), name, dirAccess|windows.DELETE|windows.FILE_WRITE_ATTRIBUTES, winfs.ShareAll, openExists, windows.FILE_DIRECTORY_FILE)
	w.u.Ops++
	if errors.Is(err, fs.ErrNotExist) {
		return w.u.Ops, nil
	}
	if err != nil {
		return w.u.Ops, fmt.Errorf("removing %s: %w", name, err)
	}
	defer windows.CloseHandle(top)
	in, err := winfs.Stat(top)
	if err != nil {
		return w.u.Ops, fmt.Errorf("removing %s: %w", name, err)
	}
	if in.Reparse() {
		return w.u.Ops, fmt.Errorf("removing %s: it is a symlink or junction, not a directory: %w", name, winfs.ErrReparsePoint)
	}
	if err := w.remove(top, name); err != nil {
		return w.u.Ops, err
	}
	if err := winfs.Delete(top, in); err != nil {
		return w.u.Ops, fmt.Errorf("removing %s: %w", name, err)
	}
	return w.u.Ops, nil
}

// remove deletes everything in the directory open as h (rel for errors).
func (w *walker) remove(h windows.Handle, rel string) error {
	entries, err := winfs.Names(h)
	if err != nil {
		return fmt.Errorf("listing %s: %w", rel, err)
	}
	for _, e := range entries {
		name := path.Join(rel, e.Name())
		w.u.Ops++
		access := uint32(windows.DELETE | windows.FILE_WRITE_ATTRIBUTES)
		if e.IsDir() {
			access |= dirAccess
		}
		ch, err := winfs.Open(h, e.Name(), access, winfs.ShareAll, openExists, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("removing %s: %w", name, err)
		}
		err = w.removeOne(ch, e, name)
		windows.CloseHandle(ch) // the deletion happens here
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) removeOne(h windows.Handle, e os.DirEntry, name string) error {
	in, err := winfs.Stat(h)
	if err != nil {
		return fmt.Errorf("removing %s: %w", name, err)
	}
	switch {
	case in.Mount():
		return &MountError{Path: name}
	case in.Reparse():
		// A symlink (or another reparse point): the link goes, never
		// what it names.
	case in.IsDir():
		if !e.IsDir() {
			return fmt.Errorf("removing %s: listed as a file, now a directory: %w", name, ErrChanged)
		}
		if err := w.remove(h, name); err != nil {
			return err
		}
	}
	if err := winfs.Delete(h, in); err != nil {
		return fmt.Errorf("removing %s: %w", name, err)
	}
	return nil
}

// OpenDir opens rel, a slash-separated path relative to the open directory
// dir, one component at a time without following any reparse point;
// every component must be a directory.
func OpenDir(dir *os.File, rel string) (*os.File, error) {
	h := windows.Handle(dir.Fd())
	owned := windows.InvalidHandle
	closeOwned := func() {
		if owned != windows.InvalidHandle {
			windows.CloseHandle(owned)
		}
	}
	parts := strings.Split(rel, "/")
	if rel == "" || rel == "." {
		parts = nil
	}
	for _, part := range parts {
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			closeOwned()
			return nil, &os.PathError{Op: "open", Path: rel, Err: windows.ERROR_INVALID_NAME}
		}
		next, err := winfs.Open(h, part, dirAccess, winfs.ShareAll, openExists, 0)
		closeOwned()
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
		owned, h = next, next
		in, err := winfs.Stat(next)
		switch {
		case err != nil:
		case in.Reparse():
			err = winfs.ErrReparsePoint
		case !in.IsDir():
			err = windows.ERROR_DIRECTORY
		}
		if err != nil {
			closeOwned()
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
	}
	if owned == windows.InvalidHandle {
		p := windows.CurrentProcess()
		if err := windows.DuplicateHandle(p, h, p, &owned, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
	}
	return os.NewFile(uintptr(owned), path.Join(dir.Name(), rel)), nil
}

// HeldOpen returns the first file in the directory open as dir (rel to
// it) that another process holds so that it could not be deleted or
// renamed (winfs.InUse on an open for DELETE, and for writing unless
// read-only: a running program's image refuses writers), or "" when none
// is. Reparse points are not followed. What it cannot open for another
// reason is not reported: the removal itself then fails, and says why.
// Windows refuses to move a directory holding such a file, but Wine
// does not: this check is what keeps the release there.
func HeldOpen(dir *os.File) (string, error) {
	return heldOpen(windows.Handle(dir.Fd()), ".")
}

func heldOpen(h windows.Handle, rel string) (string, error) {
	entries, err := winfs.Names(h)
	if err != nil {
		return "", fmt.Errorf("listing %s: %w", rel, err)
	}
	for _, e := range entries {
		name := path.Join(rel, e.Name())
		if e.IsDir() {
			ch, err := winfs.Open(h, e.Name(), dirAccess, winfs.ShareAll, openExists, 0)
			if err != nil {
				continue
			}
			in, err := winfs.Stat(ch)
			held := ""
			if err == nil && in.IsDir() && !in.Reparse() {
				held, err = heldOpen(ch, name)
			}
			windows.CloseHandle(ch)
			if held != "" || err != nil {
				return held, err
			}
			continue
		}
		access := uint32(windows.DELETE)
		if info, err := e.Info(); err == nil && info.Mode().Perm()&0o200 != 0 {
			access |= windows.FILE_WRITE_DATA
		}
		ch, err := winfs.Open(h, e.Name(), access, winfs.ShareAll, openExists, 0)
		if err == nil {
			windows.CloseHandle(ch)
			continue
		}
		if errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return name, nil
		}
	}
	return "", nil
}

// RemoveEmpty deletes name, an empty directory in the open directory
// parent, never following a reparse point: a symlink or junction there is
// left alone (an error wrapping winfs.ErrReparsePoint), a directory with
// anything in it fails (ERROR_DIR_NOT_EMPTY).
func RemoveEmpty(parent *os.File, name string) error {
	h, err := winfs.Open(windows.Handle(parent.Fd()), name, windows.DELETE|windows.FILE_LIST_DIRECTORY, winfs.ShareAll, openExists, windows.FILE_DIRECTORY_FILE)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	in, err := winfs.Stat(h)
	if err != nil {
		return err
	}
	if in.Reparse() {
		return &os.PathError{Op: "remove", Path: name, Err: winfs.ErrReparsePoint}
	}
	return winfs.Delete(h, in)
}
