package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// ErrChanged: OpenRootAt's directory was replaced between its two opens.
var ErrChanged = errors.New("changed while being opened")

// OpenRoot opens path as an *os.Root, following symlinks (a store moved
// to another disk and linked back), never blocking on a FIFO.
func OpenRoot(path string) (*os.Root, error) {
	r, err := os.OpenRoot(Dir(path))
	if err != nil {
		return nil, notDir(err, path, func() (fs.FileInfo, error) { return os.Stat(path) })
	}
	return r, nil
}

// OpenRootAt opens name inside parent as OpenRoot does; NoFollow (Unix
// only) refuses a symlink at its last component (ELOOP).
func OpenRootAt(parent *os.Root, name string, follow Follow) (*os.Root, error) {
	var nf *os.File
	if !follow {
		f, err := OpenAt(parent, strings.TrimSuffix(name, "/"), os.O_RDONLY|dirOnly|nonBlocking, 0)
		if err != nil {
			return nil, notDir(err, name, func() (fs.FileInfo, error) { return parent.Lstat(name) })
		}
		defer f.Close()
		nf = f
	}
	r, err := parent.OpenRoot(Dir(name))
	if err != nil {
		return nil, notDir(err, name, func() (fs.FileInfo, error) { return parent.Stat(name) })
	}
	if nf != nil {
		a, aerr := nf.Stat()
		b, berr := r.Stat(".")
		if aerr != nil || berr != nil || !os.SameFile(a, b) {
			r.Close()
			return nil, &fs.PathError{Op: "open", Path: name, Err: ErrChanged}
		}
	}
	return r, nil
}

// ReadDir is os.ReadDir, never blocking on a FIFO at path.
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := os.OpenFile(Dir(path), os.O_RDONLY|dirOnly|nonBlocking, 0)
	if err != nil {
		return nil, notDir(err, path, func() (fs.FileInfo, error) { return os.Stat(path) })
	}
	defer f.Close()
	es, err := f.ReadDir(-1)
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return es, err
}

// notDir words an ENOTDIR (or Windows' answer, notDirOpen): "not a
// directory: it is a named pipe (FIFO)".
func notDir(err error, name string, stat func() (fs.FileInfo, error)) error {
	if !errors.Is(err, syscall.ENOTDIR) && !notDirOpen(err) {
		return err
	}
	fi, serr := stat()
	if serr != nil || fi.IsDir() {
		return err
	}
	return &fs.PathError{Op: "open", Path: strings.TrimSuffix(name, "/"), Err: fmt.Errorf("%w: it is a %s", ErrNotDir, Kind(fi.Mode()))}
}
