//go:build windows

package fileinfo

import (
	"io/fs"
	"syscall"
	"time"
)

// ID returns zeros on Windows: os's FileInfo there carries no file number
// (the volume serial and file index need an open handle: pkgstore.DirID).
func ID(fi fs.FileInfo) (dev, ino uint64) { return 0, 0 }

// DiskUsage is the file's size: its allocation needs an open handle.
func DiskUsage(fi fs.FileInfo) int64 { return fi.Size() }

// ChangeTime on Windows is the creation time: Habitat unpacks a release
// into a new directory and renames it into place (habitat-sh/habitat
// components/core/src/package/list.rs INSTALL_TMP_PREFIX), so its
// creation is when it was installed, whatever modification times the
// archive carried. NTFS's change time needs an open handle.
func ChangeTime(fi fs.FileInfo) time.Time {
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		return time.Unix(0, d.CreationTime.Nanoseconds())
	}
	return time.Time{}
}
