//go:build darwin

package artifactcache

import (
	"io/fs"
	"syscall"
	"time"
)

// ctime is a file's inode change time, which a download's rename into
// place sets.
func ctime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctimespec.Unix())
	}
	return time.Time{}
}
