//go:build unix

package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Private says why fi (fstat's) may not serve as a private file, "" when
// it may: a regular file of one link whose owner ownerOK accepts.
func Private(fi fs.FileInfo, ownerOK func(uid int) bool) string {
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("it is a %s, not a regular file; remove it", Kind(fi.Mode()))
	case st == nil:
		return "its owner and links cannot be checked on this platform"
	case st.Nlink != 1:
		return fmt.Sprintf("it has %d links (a hard link to another file?); remove it", st.Nlink)
	case !ownerOK(int(st.Uid)):
		return fmt.Sprintf("it is owned by uid %d, not by this user (uid %d); remove it or run as its owner", st.Uid, os.Geteuid())
	}
	return ""
}

func Owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

func privateHandle(f *os.File) string { return "" }
