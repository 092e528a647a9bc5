//go:build windows

package lease

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// leaseDir is the lease directory, open as an os.Root; every name given
// to its methods is one component inside it, opened without following a
// reparse point (safeio.OpenAt).
type leaseDir struct {
	root *os.Root
	path string
}

// openLeaseDir opens the lease directory of fsRoot (see dir.go); to read,
// a junction at hab-gc or leases is refused too.
func openLeaseDir(fsRoot string, write, create bool) (*leaseDir, error) {
	if !write {
		return openToRead(fsRoot)
	}
	f, err := safeio.OpenDirBeneath(fsRoot, relDir, create)
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

func openToRead(fsRoot string) (*leaseDir, error) {
	p := filepath.Join(fsRoot, filepath.FromSlash(habitatDir))
	root, err := os.OpenRoot(p)
	if err != nil {
		return nil, err
	}
	for _, name := range strings.Split(ownDir, "/") {
		p = filepath.Join(p, name)
		next, err := openOwn(root, name, p)
		root.Close()
		if err != nil {
			return nil, err
		}
		root = next
	}
	return &leaseDir{root: root, path: p}, nil
}

// openOwn opens the directory name in root (at path p), refusing a
// reparse point, and checks that what it opened is what it checked.
func openOwn(root *os.Root, name, p string) (*os.Root, error) {
	fi, err := root.Lstat(name)
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

func (d *leaseDir) Close() error { return d.root.Close() }

func (d *leaseDir) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	return safeio.OpenAt(d.root, name, flag, perm)
}

// remove falls back to the plain deletion where the root's POSIX one is
// refused (Wine).
func (d *leaseDir) remove(name string) error { return safeio.RemoveAt(d.root, name) }

func (d *leaseDir) rename(from, to string) error { return d.root.Rename(from, to) }

func (d *leaseDir) same(name string, f *os.File) bool {
	cur, err1 := d.root.Lstat(name)
	open, err2 := f.Stat()
	return err1 == nil && err2 == nil && os.SameFile(cur, open)
}

func (d *leaseDir) names() ([]string, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// sync: Windows cannot flush a directory, so a crash may lose a lease
// just taken, whose holder died with it.
func (d *leaseDir) sync() {}
