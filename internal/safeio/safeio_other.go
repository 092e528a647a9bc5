//go:build !unix && !windows

package safeio

import (
	"errors"
	"io/fs"
	"os"
)

// readFlags: no O_NONBLOCK or O_NOCTTY off Unix.
const readFlags = os.O_RDONLY

const nonBlocking = 0

const dirOnly = 0

// OpenAt is only implemented on Unix (openat with O_NOFOLLOW): elsewhere
// it fails with an error wrapping errors.ErrUnsupported.
func OpenAt(root *os.Root, name string, flag int, perm os.FileMode) (*os.File, error) {
	return nil, &fs.PathError{Op: "openat", Path: name, Err: errors.ErrUnsupported}
}

// ReadFile reads the regular file at path, at most limit bytes. Off Unix
// only FollowLinks is implemented; NoFollow fails with an error wrapping
// errors.ErrUnsupported.
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

// ModeOf is only meaningful for Unix stat modes: elsewhere every mode is
// fs.ModeIrregular.
func ModeOf(m uint32) fs.FileMode { return fs.ModeIrregular }

// notDirOpen: elsewhere than Unix and Windows, only ENOTDIR says it.
func notDirOpen(err error) bool { return false }
