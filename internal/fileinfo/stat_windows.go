//go:build windows

package fileinfo

import (
	"io/fs"
	"syscall"
	"time"
)

// ID: the file number needs a handle here (pkgstore.DirID).
func ID(fi fs.FileInfo) (dev, ino uint64) { return 0, 0 }

func DiskUsage(fi fs.FileInfo) int64 { return fi.Size() }

// ChangeTime is the creation time here: Habitat unpacks a release into a
// new directory (components/core/src/package/list.rs INSTALL_TMP_PREFIX);
// NTFS's change time needs a handle.
func ChangeTime(fi fs.FileInfo) time.Time {
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		return time.Unix(0, d.CreationTime.Nanoseconds())
	}
	return time.Time{}
}
