//go:build unix

package pkgstore

import (
	"io/fs"
	"os"
	"syscall"
)

// FileID returns the device and inode of a file, or zeros where the
// platform has none.
func FileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// DiskUsage returns the bytes a file occupies on disk.
func DiskUsage(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}

// openFileID is FileID of the open file f.
func openFileID(f *os.File) (dev, ino uint64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	dev, ino = FileID(fi)
	return dev, ino, nil
}

// DirID is the device and inode of the directory rel inside root, which
// Lstat described as fi: FileID(fi) on Unix.
func DirID(root *os.Root, rel string, fi fs.FileInfo) (dev, ino uint64) { return FileID(fi) }
