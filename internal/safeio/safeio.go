package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Limit is the read cap for metadata, specs and configuration: far above
// any real file (a DEPS file is a few KiB).
const Limit = 1 << 20

// ErrNotRegular is wrapped by the error of a read of anything but a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error of a read of a file larger than its
// cap.
var ErrTooLarge = errors.New("file too large")

// TooLargeError says how large a file was found to be.
type TooLargeError struct {
	// Size is the size fstat reports, or, when the file grew while being
	// read, the bytes read (more than Limit).
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%v: %d bytes, more than the limit of %d", ErrTooLarge, e.Size, e.Limit)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Follow says whether a symlink at the last component of a name is
// followed.
type Follow bool

const (
	NoFollow    Follow = false
	FollowLinks Follow = true
)

// ReadFileAt reads the regular file name inside root, at most limit
// bytes. With FollowLinks, a symlink is followed as root allows (never
// out of it).
func ReadFileAt(root *os.Root, name string, limit int64, follow Follow) ([]byte, error) {
	f, err := openRead(root, name, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit)
}

// openRead opens name inside root to read, following a symlink (as root
// allows) only with FollowLinks.
func openRead(root *os.Root, name string, follow Follow) (*os.File, error) {
	if follow {
		return root.OpenFile(name, readFlags, 0)
	}
	return OpenAt(root, name, readFlags, 0)
}

// OpenRegularAt opens name inside root for reading as ReadFileAt does
// (never blocking on a FIFO or a device) and checks on the descriptor
// that it is a regular file: anything else is an error wrapping
// ErrNotRegular, and the file is closed. For a file to read piece by
// piece, past any cap ReadFileAt would set.
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

// read checks f's descriptor and reads it whole, up to limit bytes.
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

// readCapped reads a regular file whole, at most limit bytes, appending to
// buf[:0] (grown as needed). size is what fstat reported: a file larger
// is refused unread, but the size is only a hint (it may change, or be 0
// for generated files), so the buffer grows with what is read, up to
// limit+1 bytes (one more than allowed shows a file that grew). read
// returns the next bytes, 0 at the end of the file.
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
		// A read that ends where fstat said the file ends, short of the
		// room asked for, is the end of a regular file; otherwise read
		// on until read says so (0).
		if n == 0 || (int64(len(b)) == size && int64(len(b)) < room) {
			return b, nil
		}
	}
}

// Regular returns nil for a regular file, and otherwise an error wrapping
// ErrNotRegular that says what the file is.
func Regular(fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%w: it is a %s", ErrNotRegular, Kind(fi.Mode()))
}

// Kind names a file's type for people, in words (never Go's mode string,
// such as "L---------").
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

// Dir returns name with a trailing slash. Opening that fails at once with
// ENOTDIR unless name is a directory (or a symlink to one), where opening
// name itself would block on a FIFO until a writer comes: os.OpenRoot and
// Root.OpenRoot open their last component without O_DIRECTORY.
func Dir(name string) string {
	if strings.HasSuffix(name, "/") {
		return name
	}
	return name + "/"
}
