//go:build windows

package lease

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// leaseDir is the lease directory, open as an os.Root: every name given
// to its methods is one component inside it, opened without following a
// reparse point (safeio.OpenAt), so nothing it does reaches outside it.
type leaseDir struct {
	root *os.Root
	path string
}

// openLeaseDir opens the lease directory of fsRoot (see dir.go): Habitat's
// part as given, hab-gc's own directories one at a time, a symlink or
// junction at either an error wrapping ErrSymlink.
func openLeaseDir(fsRoot string, create bool) (*leaseDir, error) {
	top := filepath.Join(fsRoot, filepath.FromSlash(habitatDir))
	if create {
		if err := os.MkdirAll(top, 0o755); err != nil {
			return nil, err
		}
	}
	root, err := os.OpenRoot(top)
	if err != nil {
		return nil, err
	}
	p := top
	for _, name := range ownDirs {
		p = filepath.Join(p, name)
		next, err := openOwn(root, name, p, create)
		root.Close()
		if err != nil {
			return nil, err
		}
		root = next
	}
	return &leaseDir{root: root, path: p}, nil
}

// openOwn opens the directory name in root (at path p), making it first
// with create, refusing a reparse point, and checking that what it opened
// is what it checked.
func openOwn(root *os.Root, name, p string, create bool) (*os.Root, error) {
	fi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := root.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		fi, err = root.Lstat(name)
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		target, _ := os.Readlink(p)
		return nil, fmt.Errorf("%w: %s -> %s", ErrSymlink, p, target)
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("not a directory")}
	}
	next, err := root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if now, err := next.Stat("."); err != nil || !os.SameFile(fi, now) {
		next.Close()
		return nil, fmt.Errorf("%w: %s changed while it was opened", ErrSymlink, p)
	}
	return next, nil
}

// openLeaseDirBeneath opens the lease directory of fsRoot to write in it:
// no directory from fsRoot down may be a symlink or junction
// (safeio.OpenDirBeneath).
func openLeaseDirBeneath(fsRoot string, create bool) (*leaseDir, error) {
	f, err := safeio.OpenDirBeneath(fsRoot, RelDir, create)
	if errors.Is(err, safeio.ErrSymlink) {
		return nil, fmt.Errorf("%w: %w", ErrSymlink, err)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	root, err := os.OpenRoot(f.Name())
	if err != nil {
		return nil, err
	}
	if err := safeio.SameDir(f, root); err != nil {
		root.Close()
		return nil, fmt.Errorf("%w: %w", ErrSymlink, err)
	}
	return &leaseDir{root: root, path: f.Name()}, nil
}

func (d *leaseDir) Close() error { return d.root.Close() }

// open opens name in the directory, never following a reparse point.
func (d *leaseDir) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	return safeio.OpenAt(d.root, name, flag, perm)
}

// remove deletes name through the root, relative to the directory's
// handle, never by a path: safeio.RemoveAt, which falls back to the plain
// deletion where the root's POSIX one is refused (as under Wine).
func (d *leaseDir) remove(name string) error { return safeio.RemoveAt(d.root, name) }

func (d *leaseDir) rename(from, to string) error { return d.root.Rename(from, to) }

// same reports whether name is still the file f has open.
func (d *leaseDir) same(name string, f *os.File) bool {
	cur, err1 := d.root.Lstat(name)
	open, err2 := f.Stat()
	return err1 == nil && err2 == nil && os.SameFile(cur, open)
}

// names lists the directory.
func (d *leaseDir) names() ([]string, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// sync: Windows cannot flush a directory (FlushFileBuffers needs a file
// opened for writing), so a new lease's rename is not forced to disk
// here: a crash may lose a lease just taken, whose holder died with it.
func (d *leaseDir) sync() {}
