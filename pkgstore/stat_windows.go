//go:build windows

package pkgstore

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/winfs"
)

// openFileID is the volume serial number and file index of the open file
// f (GetFileInformationByHandle): Windows' device and inode.
func openFileID(f *os.File) (dev, ino uint64, err error) {
	in, err := winfs.Stat(windows.Handle(f.Fd()))
	if err != nil {
		return 0, 0, err
	}
	return uint64(in.Volume), in.Index, nil
}

// DirID is the volume serial number and file index of the directory rel
// inside root, read on a handle opened without following a reparse point
// (fi, Lstat's, carries neither on Windows): what tells a release
// directory replaced since the plan from the one planned. Zeros when it
// cannot be opened so.
func DirID(root *os.Root, rel string, fi fs.FileInfo) (dev, ino uint64) {
	top, err := root.Open(".")
	if err != nil {
		return 0, 0
	}
	defer top.Close()
	d, err := onefs.OpenDir(top, rel)
	if err != nil {
		return 0, 0
	}
	defer d.Close()
	dev, ino, _ = openFileID(d)
	return dev, ino
}
