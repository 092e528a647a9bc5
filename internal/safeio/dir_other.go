//go:build !linux

package safeio

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// DirFD is only implemented on Linux; elsewhere DirFDOf fails with
// errors.ErrUnsupported and callers take their slower path.
type DirFD struct{ fd int }

// DirEntry is a name in a directory and its type.
type DirEntry struct {
	Name string
	Type fs.FileMode
}

// DirFDOf is only implemented on Linux.
func DirFDOf(f *os.File) (DirFD, error) { return DirFD{-1}, errors.ErrUnsupported }

// OpenDir is only implemented on Linux.
func (d DirFD) OpenDir(name string) (DirFD, error) { return DirFD{-1}, errors.ErrUnsupported }

// Close is only implemented on Linux.
func (d DirFD) Close() error { return errors.ErrUnsupported }

// Fd returns the descriptor.
func (d DirFD) Fd() int { return d.fd }

// Stat is what DirFD reports of a file (nothing but on Linux).
type Stat struct{}

// StatTimes is only implemented on Linux.
func StatTimes(st *Stat) (mtime, ctime time.Time, dev, ino uint64) { return }

// Stat is only implemented on Linux.
func (d DirFD) Stat(st *Stat) error { return errors.ErrUnsupported }

// Entries is only implemented on Linux.
func (d DirFD) Entries(buf []byte, out []DirEntry) ([]DirEntry, error) {
	return out, errors.ErrUnsupported
}

// ReadFile is only implemented on Linux.
func (d DirFD) ReadFile(name string, limit int64, buf []byte, st *Stat) ([]byte, error) {
	return nil, errors.ErrUnsupported
}
