//go:build darwin || ios || freebsd || netbsd

package pkgstore

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime returns a file's inode change time (ctime), which rename(2)
// sets and no archive extraction can set back.
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
	}
	return time.Time{}
}
