//go:build windows

package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/winfs"
)

// Private checks no owner on Windows (no uid: ACLs decide); links are
// privateHandle's.
func Private(fi fs.FileInfo, ownerOK func(uid int) bool) string {
	if !fi.Mode().IsRegular() {
		return fmt.Sprintf("it is a %s, not a regular file; remove it", Kind(fi.Mode()))
	}
	return ""
}

func Owner(fi fs.FileInfo) int { return -1 }

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// privateHandle checks the link count os's FileInfo lacks on Windows.
func privateHandle(f *os.File) string {
	in, err := winfs.Stat(windows.Handle(f.Fd()))
	switch {
	case err != nil:
		return fmt.Sprintf("its links cannot be checked: %v", err)
	case in.Links != 1:
		return fmt.Sprintf("it has %d links (a hard link to another file?); remove it", in.Links)
	}
	return ""
}
