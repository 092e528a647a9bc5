package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Limit is the read cap for metadata, specs and configuration.
const Limit = 1 << 20

var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
)

// TooLargeError says how large a file was found to be.
type TooLargeError struct {
	Size  int64 // fstat's, or the bytes read when it grew
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%v: %d bytes, more than the limit of %d", ErrTooLarge, e.Size, e.Limit)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Follow says whether a symlink at the last component is followed.
type Follow bool

const (
	NoFollow    Follow = false
	FollowLinks Follow = true
)

// ReadFileAt reads the regular file name inside root, at most limit bytes.
func ReadFileAt(root *os.Root, name string, limit int64, follow Follow) ([]byte, error) {
	f, err := openRead(root, name, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit)
}

func openRead(root *os.Root, name string, follow Follow) (*os.File, error) {
	if follow {
		return root.OpenFile(name, readFlags, 0)
	}
	return OpenAt(root, name, readFlags, 0)
}

// OpenRegularAt is ReadFileAt's open and check, for a file read in pieces.
func OpenRegularAt(root *os.Root, name string, follow Follow) (*os.File, fs.FileInfo, error) {
	f, err := openRead(root, name, follow)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = Regular(fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return f, fi, nil
}

func read(f *os.File, name string, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := Regular(fi); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return readCapped(name, fi.Size(), limit, nil, func(p []byte) (int, error) {
		n, err := f.Read(p)
		if err == io.EOF {
			err = nil
		}
		return n, err
	})
}

// readCapped reads into buf[:0] at most limit bytes; size (fstat's) is
// only a hint: it may change, or be 0 for generated files.
func readCapped(name string, size, limit int64, buf []byte, read func([]byte) (int, error)) ([]byte, error) {
	if size > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Size: size, Limit: limit}}
	}
	b := buf[:0]
	if int64(cap(b)) < size+1 {
		b = make([]byte, 0, size+1)
	}
	for {
		if int64(len(b)) > limit {
			return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Size: int64(len(b)), Limit: limit}}
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		room := min(int64(cap(b)), limit+1)
		n, err := read(b[len(b):room])
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		b = b[:len(b)+n]
		// A short read at fstat's size is the end of a regular file.
		if n == 0 || (int64(len(b)) == size && int64(len(b)) < room) {
			return b, nil
		}
	}
}

// Regular returns nil for a regular file, else an error saying what it is.
func Regular(fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%w: it is a %s", ErrNotRegular, Kind(fi.Mode()))
}

// Kind names a file's type in words.
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "regular file"
	case t&fs.ModeDir != 0:
		return "directory"
	case t&fs.ModeSymlink != 0:
		return "symlink"
	case t&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeCharDevice != 0:
		return "character device"
	case t&fs.ModeDevice != 0:
		return "block device"
	default:
		return "file of unknown type"
	}
}

// Dir returns name with a trailing slash: opening that fails at once on a
// FIFO (ENOTDIR), which os.OpenRoot(name) would block on.
func Dir(name string) string {
	if strings.HasSuffix(name, "/") {
		return name
	}
	return name + "/"
}
