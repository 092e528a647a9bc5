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

// ErrChanged is wrapped by the error of OpenRootAt with NoFollow when the
// directory at the name was replaced between its two opens.
var ErrChanged = errors.New("changed while being opened")

// OpenRoot opens the directory at path as an *os.Root, following
// symlinks (a store or a cache moved to another disk and linked back).
// It never blocks: the name is opened with a trailing slash, so a FIFO or
// a device there fails at once in the kernel's own lookup (ENOTDIR, the
// error saying what it is), where os.OpenRoot(path) would wait in open(2)
// for a FIFO's writer, deaf to signals.
func OpenRoot(path string) (*os.Root, error) {
	r, err := os.OpenRoot(Dir(path))
	if err != nil {
		return nil, notDir(err, path, func() (fs.FileInfo, error) { return os.Stat(path) })
	}
	return r, nil
}

// OpenRootAt opens the directory name inside parent as an *os.Root,
// never blocking on a FIFO or a device there (as OpenRoot). With
// NoFollow, a symlink at its last component is refused (ELOOP): the name
// is also opened with O_NOFOLLOW|O_DIRECTORY, and the root must be that
// same directory (fstat), else the error wraps ErrChanged. NoFollow is
// only implemented on Unix.
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

// ReadDir lists the directory at path, sorted by name, as os.ReadDir
// does, but never blocks on a FIFO or a device at path (ENOTDIR at once,
// saying what it is), whatever the Go release's os.ReadDir does.
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

// notDir says what is at name when err is ENOTDIR, or what Windows
// answers an open of a file's name with a trailing separator (notDirOpen),
// and it is not a directory (a FIFO, a device, a file): "not a directory:
// it is a named pipe (FIFO)". stat only reads the type, never opens.
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
