//go:build windows

package safeio

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/winfs"
)

const (
	readFlags   = os.O_RDONLY
	nonBlocking = 0
	dirOnly     = 0
)

// OpenAt opens name inside root, a reparse point at its last component
// failing with ELOOP (winfs.ErrReparsePoint), sharing everything so as
// never to stand in Habitat's way; a new file takes its directory's ACL.
func OpenAt(root *os.Root, name string, flag int, perm os.FileMode) (*os.File, error) {
	dir, base := path.Split(name)
	if dir == "" {
		dir = "."
	}
	if base == "" || base == "." || base == ".." || strings.ContainsAny(base, `\`+"\x00") {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: syscall.EINVAL}
	}
	d, err := root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	default:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		access &^= windows.GENERIC_WRITE
		access |= windows.FILE_APPEND_DATA
	}
	disposition := uint32(windows.FILE_OPEN)
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		disposition = windows.FILE_CREATE
	case flag&(os.O_CREATE|os.O_TRUNC) == os.O_CREATE|os.O_TRUNC:
		disposition = windows.FILE_OVERWRITE_IF
	case flag&os.O_CREATE != 0:
		disposition = windows.FILE_OPEN_IF
	case flag&os.O_TRUNC != 0:
		disposition = windows.FILE_OVERWRITE
	}
	h, err := winfs.Open(windows.Handle(d.Fd()), base, access, winfs.ShareAll, disposition, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: underlying(err)}
	}
	in, err := winfs.Stat(h)
	if err == nil && in.Reparse() {
		err = winfs.ErrReparsePoint
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), filepath.Join(root.Name(), filepath.FromSlash(name))), nil
}

func underlying(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// ReadFile with NoFollow checks the opened handle for a reparse point.
func ReadFile(p string, limit int64, follow Follow) ([]byte, error) {
	if follow {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return read(f, p, limit)
	}
	name, err := windows.UTF16PtrFromString(winfs.LongPath(p))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	h, err := windows.CreateFile(name, windows.GENERIC_READ, winfs.ShareAll, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	in, err := winfs.Stat(h)
	if err == nil && in.Reparse() {
		err = winfs.ErrReparsePoint
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	f := os.NewFile(uintptr(h), p)
	defer f.Close()
	return read(f, p, limit)
}

func ModeOf(m uint32) fs.FileMode { return fs.ModeIrregular }

// notDirOpen: Windows' answers to a file's name with a trailing separator.
func notDirOpen(err error) bool {
	return errors.Is(err, windows.ERROR_INVALID_NAME) || errors.Is(err, windows.ERROR_DIRECTORY)
}
