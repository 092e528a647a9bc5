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

// On Windows every step opens one name relative to a directory handle
// without following a reparse point: a junction or volume mount point is
// a mount point, never entered; a symlink is deleted as a link.

const Supported = true

var (
	ErrMountPoint = errors.New("mount point inside the tree")
	ErrChanged    = errors.New("the tree changed while being walked")
)

type MountError struct{ Path string }

func (e *MountError) Error() string {
	return e.Path + " is a mount point (a junction or a volume mount point)"
}
func (e *MountError) Unwrap() error { return ErrMountPoint }

type Usage struct {
	Bytes  int64
	Mounts []string
	Ops    int
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

func WalkAt(dirfd int, name string, measure bool, bufs *Buffers) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}

func MeasureOpen(fd int, top *safeio.Stat, known func(name string) *safeio.Stat, bufs *Buffers) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}

// RemoveAll: a file held open without FILE_SHARE_DELETE (a running
// program) fails with ERROR_SHARING_VIOLATION naming it.
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
		// the link goes, never what it names
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

// OpenDir opens rel below dir one component at a time, never through a
// reparse point.
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

// HeldOpen returns the first file in dir another process holds so that it
// could not be deleted (open for DELETE, and writing unless read-only), or
// "": Wine, unlike Windows, moves a directory holding one.
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

// RemoveEmpty deletes the empty directory name, refusing a reparse point.
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
