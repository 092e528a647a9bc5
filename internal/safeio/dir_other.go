//go:build !linux

package safeio

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// DirFD is only implemented on Linux: DirFDOf fails with
// errors.ErrUnsupported and callers take their slower path.
type DirFD struct{ fd int }

type DirEntry struct {
	Name string
	Type fs.FileMode
}

func DirFDOf(f *os.File) (DirFD, error) { return DirFD{-1}, errors.ErrUnsupported }

func (d DirFD) OpenDir(name string) (DirFD, error) { return DirFD{-1}, errors.ErrUnsupported }

func (d DirFD) Close() error { return errors.ErrUnsupported }

func (d DirFD) Fd() int { return d.fd }

type Stat struct{}

func StatTimes(st *Stat) (mtime, ctime time.Time, dev, ino uint64) { return }

func (d DirFD) Stat(st *Stat) error { return errors.ErrUnsupported }

func (d DirFD) Entries(buf []byte, out []DirEntry) ([]DirEntry, error) {
	return out, errors.ErrUnsupported
}

func (d DirFD) ReadFile(name string, limit int64, buf []byte, st *Stat) ([]byte, error) {
	return nil, errors.ErrUnsupported
}
