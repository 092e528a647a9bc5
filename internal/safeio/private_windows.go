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

// Private says why the file fi describes may not serve as a private file
// that hab-gc locks or writes: "" when it may. On Windows it must be a
// regular file (a reparse point was already refused when it was opened:
// OpenAt) with one link (privateHandle). The owner is not checked: Windows
// has no uid, and who may write under C:\hab is the ACLs'
// business (Habitat's directories are the Administrators').
func Private(fi fs.FileInfo, ownerOK func(uid int) bool) string {
	if !fi.Mode().IsRegular() {
		return fmt.Sprintf("it is a %s, not a regular file; remove it", Kind(fi.Mode()))
	}
	return ""
}

// Owner is -1 on Windows (no uid).
func Owner(fi fs.FileInfo) int { return -1 }

// isLoop reports a reparse point refused by OpenAt.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// privateHandle checks on the open handle what os's FileInfo does not
// carry on Windows: exactly one link (not a hard link to a file
// elsewhere, which writing the pid would truncate).
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
