//go:build unix

package fileinfo

import (
	"io/fs"
	"syscall"
)

// ID returns the device and inode of a file, or zeros where the
// platform has none.
func ID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// DiskUsage returns the bytes a file occupies on disk: its allocated
// blocks (a sparse file occupies less than its size), or its size where
// the platform does not say.
func DiskUsage(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}
