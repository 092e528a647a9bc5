package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
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

// readFlags opens for reading without blocking on a FIFO or a device and
// without making a terminal the controlling one.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// OpenAt opens name inside root with flag and perm (O_CLOEXEC always;
// O_NONBLOCK is the caller's choice), never following a symlink at its
// last component: a symlink there fails with ELOOP. Earlier components are
// resolved by root, which keeps them inside it.
func OpenAt(root *os.Root, name string, flag int, perm os.FileMode) (*os.File, error) {
	dir, base := path.Split(name)
	if dir == "" {
		dir = "."
	}
	if base == "" || base == "." || base == ".." || strings.ContainsRune(base, 0) {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: syscall.EINVAL}
	}
	d, err := root.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	rc, err := d.SyscallConn()
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	fd := -1
	var oerr error
	if err := rc.Control(func(dfd uintptr) {
		for {
			fd, oerr = unix.Openat(int(dfd), base, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
			if oerr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	if oerr != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: oerr}
	}
	return os.NewFile(uintptr(fd), path.Join(root.Name(), name)), nil
}

// ReadFile reads the regular file at path, at most limit bytes.
func ReadFile(path string, limit int64, follow Follow) ([]byte, error) {
	flag := readFlags
	if !follow {
		flag |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, limit)
}

// ReadFileAt reads the regular file name inside root, at most limit
// bytes. With FollowLinks, a symlink is followed as root allows (never
// out of it).
func ReadFileAt(root *os.Root, name string, limit int64, follow Follow) ([]byte, error) {
	var f *os.File
	var err error
	if follow {
		f, err = root.OpenFile(name, readFlags, 0)
	} else {
		f, err = OpenAt(root, name, readFlags, 0)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit)
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

// ModeOf gives the fs.FileMode type bits of a stat mode (fs.ModeIrregular
// for a type it does not know).
func ModeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
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
