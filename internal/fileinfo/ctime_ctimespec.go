//go:build darwin || ios || freebsd || netbsd

package fileinfo

import (
	"io/fs"
	"syscall"
	"time"
)

// ChangeTime returns a file's inode change time (ctime), which rename(2)
// sets and no archive extraction can set back.
func ChangeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
	}
	return time.Time{}
}
