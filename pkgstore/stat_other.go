//go:build !unix && !windows

package pkgstore

import (
	"io/fs"
	"os"
)

func openFileID(f *os.File) (dev, ino uint64, err error) { return 0, 0, nil }

// DirID is zeros where the platform has no file identity.
func DirID(root *os.Root, rel string, fi fs.FileInfo) (dev, ino uint64) { return 0, 0 }
