//go:build windows

package winfs

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// Writable asks Windows whether this process may write path, as
// access(2) with W_OK does on Unix: it opens path for FILE_WRITE_DATA
// (for a directory the same bit is FILE_ADD_FILE: may a file be made in
// it) and closes it, writing nothing. The open is checked against the
// file's ACL, its read-only attribute and the handles others hold (one
// held without FILE_SHARE_WRITE refuses it, as it would refuse a write);
// no one else is stood in the way of (ShareAll). Errors are
// syscall.Errno (ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION,
// ERROR_FILE_NOT_FOUND, ...), which errors.Is matches with fs.ErrNotExist
// and fs.ErrPermission.
func Writable(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	p, err := windows.UTF16PtrFromString(LongPath(abs))
	if err != nil {
		return err
	}
	// Windows refuses to open a read-only file for writing; said here
	// too, since Wine running as root opens one.
	attrs, err := windows.GetFileAttributes(p)
	if err != nil {
		return err
	}
	if attrs&windows.FILE_ATTRIBUTE_READONLY != 0 && attrs&windows.FILE_ATTRIBUTE_DIRECTORY == 0 {
		return windows.ERROR_ACCESS_DENIED
	}
	// FILE_FLAG_BACKUP_SEMANTICS opens a directory too; without the
	// backup privilege enabled (hab-gc never enables it) it grants
	// nothing the ACL does not.
	h, err := windows.CreateFile(p, windows.FILE_WRITE_DATA, ShareAll, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return err
	}
	return windows.CloseHandle(h)
}
