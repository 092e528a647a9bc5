//go:build !unix && !windows

package fileinfo

import (
	"io/fs"
	"time"
)

// ID returns the device and inode of a file, or zeros where the
// platform has none.
func ID(fi fs.FileInfo) (dev, ino uint64) { return 0, 0 }

// DiskUsage returns the bytes a file occupies on disk: its size where the
// platform does not say.
func DiskUsage(fi fs.FileInfo) int64 { return fi.Size() }

// ChangeTime returns a file's inode change time: zero where the platform
// has none.
func ChangeTime(fi fs.FileInfo) time.Time { return time.Time{} }
