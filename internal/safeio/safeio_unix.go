//go:build unix

package safeio

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	readFlags   = os.O_RDONLY | nonBlocking
	nonBlocking = syscall.O_NONBLOCK | syscall.O_NOCTTY
	dirOnly     = syscall.O_DIRECTORY
)

// OpenAt opens name inside root, a symlink at its last component failing
// with ELOOP; O_NONBLOCK is the caller's choice.
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

// ModeOf gives a stat mode's fs.FileMode type bits.
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

func notDirOpen(err error) bool { return false }
