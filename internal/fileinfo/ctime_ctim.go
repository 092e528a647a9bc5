//go:build linux || openbsd || dragonfly || solaris || illumos || aix

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
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return time.Time{}
}
