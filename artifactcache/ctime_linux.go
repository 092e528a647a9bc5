package artifactcache

import (
	"io/fs"
	"syscall"
	"time"
)

func ctime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Unix())
	}
	return time.Time{}
}
