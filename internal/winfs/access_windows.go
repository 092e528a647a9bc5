//go:build windows

package winfs

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// Writable is access(2) with W_OK: it opens path for FILE_WRITE_DATA
// (FILE_ADD_FILE for a directory), checked against the ACL, the read-only
// attribute and others' handles, and writes nothing.
func Writable(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	p, err := windows.UTF16PtrFromString(LongPath(abs))
	if err != nil {
		return err
	}
	// Wine running as root would open a read-only file.
	attrs, err := windows.GetFileAttributes(p)
	if err != nil {
		return err
	}
	if attrs&windows.FILE_ATTRIBUTE_READONLY != 0 && attrs&windows.FILE_ATTRIBUTE_DIRECTORY == 0 {
		return windows.ERROR_ACCESS_DENIED
	}
	// BACKUP_SEMANTICS opens a directory; without the privilege (never
	// enabled) it grants nothing the ACL does not.
	h, err := windows.CreateFile(p, windows.FILE_WRITE_DATA, ShareAll, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return err
	}
	return windows.CloseHandle(h)
}
