//go:build unix

package pkgstore

import (
	"io/fs"
	"os"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
)

// openFileID is the device and inode of the open file f.
func openFileID(f *os.File) (dev, ino uint64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	dev, ino = fileinfo.ID(fi)
	return dev, ino, nil
}

// DirID is the device and inode of the directory rel inside root, which
// Lstat described as fi: fi's own on Unix.
func DirID(root *os.Root, rel string, fi fs.FileInfo) (dev, ino uint64) { return fileinfo.ID(fi) }
