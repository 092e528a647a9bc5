//go:build windows

package pkgstore

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/winfs"
)

// FileID returns zeros on Windows: os's FileInfo there carries no file
// number (the volume serial and file index need an open handle: DirID).
func FileID(fi fs.FileInfo) (dev, ino uint64) { return 0, 0 }

// changeTime on Windows is the creation time: Habitat unpacks a release
// into a new directory and renames it into place (habitat-sh/habitat
// components/core/src/package/list.rs INSTALL_TMP_PREFIX), so its
// creation is when it was installed, whatever modification times the
// archive carried. NTFS's change time needs an open handle.
func changeTime(fi fs.FileInfo) time.Time {
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		return time.Unix(0, d.CreationTime.Nanoseconds())
	}
	return time.Time{}
}

// DiskUsage is the file's size: its allocation needs an open handle.
func DiskUsage(fi fs.FileInfo) int64 { return fi.Size() }

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
