//go:build linux || openbsd || dragonfly || solaris || illumos || aix

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
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return time.Time{}
}
