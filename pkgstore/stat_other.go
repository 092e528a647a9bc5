//go:build !unix && !windows

package pkgstore

import (
	"io/fs"
	"os"
	"time"
)

// FileID returns the device and inode of a file, or zeros where the
// platform has none.
func FileID(fi fs.FileInfo) (dev, ino uint64) { return 0, 0 }

func changeTime(fi fs.FileInfo) time.Time { return time.Time{} }

func DiskUsage(fi fs.FileInfo) int64 { return fi.Size() }

func openFileID(f *os.File) (dev, ino uint64, err error) { return 0, 0, nil }

// DirID is FileID(fi).
func DirID(root *os.Root, rel string, fi fs.FileInfo) (dev, ino uint64) { return FileID(fi) }
