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

var ErrSymlink = errors.New("a symlink, which hab-gc does not write through")

// SymlinkError names a symlink found on the way to where hab-gc writes.
type SymlinkError struct {
	Path   string
	Target string
}

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s is %v (it points to %s): no directory below the FS root may be a symlink on the way to a file hab-gc writes; replace it with the directory itself", e.Path, ErrSymlink, e.Target)
}

func (e *SymlinkError) Is(target error) bool { return target == ErrSymlink }

// beneathParts splits rel into names; ".", ".." or absolute are EINVAL.
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

// OpenRootBeneath is OpenDirBeneath as an *os.Root, checked to be the
// directory the walk reached.
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

// SameDir returns nil when root is the directory d has open.
func SameDir(d *os.File, root *os.Root) error {
	a, err1 := d.Stat()
	b, err2 := root.Stat(".")
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		return fmt.Errorf("%s changed while it was opened (replaced, or a symlink swapped in on the way): %w", d.Name(), ErrSymlink)
	}
	return nil
}

// CheckBeneath returns nil when root is rel below fsRoot reached without
// following a symlink.
func CheckBeneath(fsRoot, rel string, root *os.Root) error {
	d, err := OpenDirBeneath(fsRoot, rel, false)
	if err != nil {
		return err
	}
	defer d.Close()
	return SameDir(d, root)
}
