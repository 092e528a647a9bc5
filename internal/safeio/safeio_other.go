//go:build !unix && !windows

package safeio

import (
	"errors"
	"io/fs"
	"os"
)

const (
	readFlags   = os.O_RDONLY
	nonBlocking = 0
	dirOnly     = 0
)

// OpenAt is only implemented on Unix and Windows.
func OpenAt(root *os.Root, name string, flag int, perm os.FileMode) (*os.File, error) {
	return nil, &fs.PathError{Op: "openat", Path: name, Err: errors.ErrUnsupported}
}

// ReadFile implements only FollowLinks here.
func ReadFile(path string, limit int64, follow Follow) ([]byte, error) {
	if !follow {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.ErrUnsupported}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, limit)
}

func ModeOf(m uint32) fs.FileMode { return fs.ModeIrregular }

func notDirOpen(err error) bool { return false }
