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

// readFlags: Windows has no FIFO to block on in a store, nor a
// controlling terminal.
const readFlags = os.O_RDONLY

const nonBlocking = 0

const dirOnly = 0

// OpenAt opens name inside root with flag and perm, never following a
// reparse point (a symlink or junction) at its last component: one there
// fails with ELOOP (winfs.ErrReparsePoint), as O_NOFOLLOW on Unix. Earlier
// components are resolved by root, which keeps them inside it. The last
// one is opened relative to its directory's handle (NtCreateFile with
// FILE_OPEN_REPARSE_POINT, internal/winfs), sharing read, write and
// delete, so that hab-gc never stands in Habitat's way. perm is not used:
// a new file takes its directory's ACL, as every file Habitat writes.
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

// ReadFile reads the regular file at path, at most limit bytes. With
// NoFollow a reparse point at path is refused (ELOOP), checked on the
// opened handle (FILE_FLAG_OPEN_REPARSE_POINT), not on a name resolved
// twice.
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

// ModeOf is only meaningful for Unix stat modes: elsewhere every mode is
// fs.ModeIrregular.
func ModeOf(m uint32) fs.FileMode { return fs.ModeIrregular }

// notDirOpen: Windows answers an open of a file's name with a trailing
// separator with ERROR_INVALID_NAME (ERROR_DIRECTORY for a directory
// open of a file), not ENOTDIR.
func notDirOpen(err error) bool {
	return errors.Is(err, windows.ERROR_INVALID_NAME) || errors.Is(err, windows.ERROR_DIRECTORY)
}
