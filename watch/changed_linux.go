package watch

import (
	"syscall"
	"time"
)

// changed is the later of path's mtime and ctime (not followed).
func changed(path string) (time.Time, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return time.Time{}, false
	}
	m := time.Unix(st.Mtim.Sec, st.Mtim.Nsec)
	c := time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	if c.After(m) {
		return c, true
	}
	return m, true
}
