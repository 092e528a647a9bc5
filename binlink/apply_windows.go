//go:build windows

package binlink

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/winfs"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// removesBinstubs: on Windows a dangling binstub whose package is gone is
// removed (binstub.go).
const removesBinstubs = true

// dir is an open binlink directory.
type dir struct {
	h    windows.Handle
	name string // FS-root-relative, for messages
	full string
}

// openDir opens rel (slash-separated, relative to fsRoot) one component
// at a time without following a reparse point (winfs.OpenDirAt): a
// symlink or junction on the way is refused, as O_NOFOLLOW on Unix.
func openDir(fsRoot, rel string) (dir, error) {
	abs, err := filepath.Abs(fsRoot)
	if err != nil {
		return dir{}, fmt.Errorf("binlink: opening %s: %w", fsRoot, err)
	}
	p, err := windows.UTF16PtrFromString(winfs.LongPath(abs))
	if err != nil {
		return dir{}, fmt.Errorf("binlink: opening %s: %w", fsRoot, err)
	}
	// The FS root itself is the caller's (C:\ or FS_ROOT), followed.
	h, err := windows.CreateFile(p, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE, winfs.ShareAll, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return dir{}, fmt.Errorf("binlink: opening %s: %w", fsRoot, err)
	}
	cur := ""
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." {
			continue
		}
		cur = path.Join(cur, c)
		next, err := winfs.OpenDirAt(h, c, false)
		windows.CloseHandle(h)
		full := filepath.Join(fsRoot, filepath.FromSlash(cur))
		switch {
		case errors.Is(err, winfs.ErrReparsePoint) || errors.Is(err, windows.ERROR_DIRECTORY):
			return dir{}, fmt.Errorf("binlink: %s is a reparse point (a symlink or junction) or not a directory: %w; nothing changed (name the directory it leads to in HAB_BINLINK_DIR)", full, ErrUnsafeDir)
		case err != nil:
			return dir{}, fmt.Errorf("binlink: opening %s: %w", full, err)
		}
		h = next
	}
	return dir{h: h, name: rel, full: filepath.Join(fsRoot, filepath.FromSlash(rel))}, nil
}

func (d dir) close() { windows.CloseHandle(d.h) }

// sync: NTFS journals the directory's names itself.
func (d dir) sync() {}

// apply removes one dangling binstub (see removeBinstub). Windows'
// binlinks are binstubs: a symlink step (which Habitat does not make
// there) fails with errors.ErrUnsupported, changing nothing.
func (d dir) apply(store *pkgstore.Store, s Step, beforeChange func(string)) StepOutcome {
	if !s.binstub || s.Action != ActionRemove {
		return StepOutcome{Step: s, Err: fmt.Errorf("binlink: only binstubs are removed on Windows, %s is not one: %w", s.Link, errors.ErrUnsupported)}
	}
	return d.removeBinstub(store, s, beforeChange)
}

// removeBinstub removes the binstub of s in one step on one handle: its
// name opened relative to the directory's handle without following a
// reparse point, for DELETE, sharing only reading (no one may write or
// delete it while it is checked; one held open for writing refuses the
// open, and it is kept); read on that handle, it must still name s.Target,
// and every path into the store it names must still lead nowhere; then
// that very file is marked for deletion. Habitat's own `hab pkg binlink
// --force` removes a binstub by name (fs::remove_file) and writes another.
func (d dir) removeBinstub(store *pkgstore.Store, s Step, beforeChange func(string)) StepOutcome {
	name := path.Base(s.Link)
	o := StepOutcome{Step: s, Status: StatusKept}
	h, err := winfs.Open(d.h, name, windows.DELETE|windows.FILE_READ_DATA|windows.FILE_WRITE_ATTRIBUTES, windows.FILE_SHARE_READ,
		windows.FILE_OPEN, windows.FILE_NON_DIRECTORY_FILE)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		o.Why = "it is gone since the plan"
		return o
	case err != nil && winfs.InUse(err):
		o.Why = fmt.Sprintf("a process holds it open (%v): left alone", err)
		return o
	case err != nil:
		o.Err = fmt.Errorf("opening %s: %w", s.Link, err)
		return o
	}
	defer windows.CloseHandle(h)
	in, err := winfs.Stat(h)
	switch {
	case err != nil:
		o.Err = fmt.Errorf("reading %s: %w", s.Link, err)
		return o
	case in.Reparse():
		o.Why = "it is a symlink or another reparse point since the plan: left alone"
		return o
	case in.Size > safeio.Limit:
		o.Why = fmt.Sprintf("it is %d bytes since the plan, no binstub: left alone", in.Size)
		return o
	}
	data := make([]byte, in.Size)
	for off := 0; off < len(data); {
		var n uint32
		ol := windows.Overlapped{Offset: uint32(off)}
		if err := windows.ReadFile(h, data[off:], &n, &ol); err != nil || n == 0 {
			o.Err = fmt.Errorf("reading %s: %v", s.Link, err)
			return o
		}
		off += int(n)
	}
	named := pkgstore.ParseBinstub(data).Named()
	if !slices.Contains(named, s.Target) {
		o.Why = "it no longer names " + s.Target + " since the plan: left alone"
		return o
	}
	for _, t := range named {
		rel, ok := pkgstore.WindowsStorePath(t, store.FSRoot())
		if !ok {
			continue
		}
		switch nowhere, err := leadsNowhere(store.Root(), rel); {
		case err != nil:
			o.Why = fmt.Sprintf("whether %s exists cannot be told now (%v): left alone", t, err)
			return o
		case !nowhere:
			o.Why = t + " is there now: left alone"
			return o
		}
	}
	if beforeChange != nil {
		beforeChange(s.Link)
	}
	if err := winfs.Delete(h, in); err != nil {
		o.Err = fmt.Errorf("removing %s: %w", s.Link, err)
		return o
	}
	o.Status = StatusRemoved
	return o
}
