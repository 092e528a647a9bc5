package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

// ErrSymlink is wrapped by the error of OpenDirBeneath and
// OpenRootBeneath when a directory below the FS root, on the way to
// where hab-gc writes, is a symlink: hab-gc never writes through one.
var ErrSymlink = errors.New("a symlink, which hab-gc does not write through")

// SymlinkError names the symlink found on the way to a directory hab-gc
// writes in, and where it leads.
type SymlinkError struct {
	Path   string // the symlink (the FS root joined with the components up to it)
	Target string // what it points to, as readlink says
}

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s is %v (it points to %s): no directory below the FS root may be a symlink on the way to a file hab-gc writes; replace it with the directory itself", e.Path, ErrSymlink, e.Target)
}

func (e *SymlinkError) Is(target error) bool { return target == ErrSymlink }

// beneathParts splits rel, a slash-separated path relative to the FS
// root, into its components: each one a name, never "." or "..", never
// empty (an absolute rel, or one with such a component, is EINVAL).
func beneathParts(rel string) ([]string, error) {
	if rel == "" || rel == "." {
		return nil, nil
	}
	if path.IsAbs(rel) {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.EINVAL}
	}
	parts := strings.Split(strings.TrimSuffix(rel, "/"), "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsRune(p, 0) {
			return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.EINVAL}
		}
	}
	return parts, nil
}

// OpenRootBeneath is OpenDirBeneath as an *os.Root: the directory is
// opened with os.OpenRoot by its path and checked to be the very
// directory the walk reached (same device and inode), so that a symlink
// swapped in meanwhile is found (an error naming it) rather than
// followed.
func OpenRootBeneath(fsRoot, rel string, create bool) (*os.Root, error) {
	d, err := OpenDirBeneath(fsRoot, rel, create)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	r, err := os.OpenRoot(Dir(d.Name()))
	if err != nil {
		return nil, err
	}
	if err := SameDir(d, r); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// SameDir returns nil when root is opened at the directory d has open
// (same device and inode), else an error naming d.
func SameDir(d *os.File, root *os.Root) error {
	a, err1 := d.Stat()
	b, err2 := root.Stat(".")
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		return fmt.Errorf("%s changed while it was opened (replaced, or a symlink swapped in on the way): %w", d.Name(), ErrSymlink)
	}
	return nil
}

// CheckBeneath returns nil when root, already open, is the directory rel
// below fsRoot reached without following a symlink (OpenDirBeneath
// without create); otherwise the walk's error, or one saying that the
// names lead elsewhere.
func CheckBeneath(fsRoot, rel string, root *os.Root) error {
	d, err := OpenDirBeneath(fsRoot, rel, false)
	if err != nil {
		return err
	}
	defer d.Close()
	return SameDir(d, root)
}
