//go:build darwin || ios

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
		return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec)
	}
	return time.Time{}
}
