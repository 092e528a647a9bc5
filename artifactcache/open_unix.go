//go:build unix

package artifactcache

import (
	"io/fs"
	"syscall"
)

const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)

// supported: the cache is read and changed with Unix calls (O_NOFOLLOW,
// stat's device, inode and link count).
func supported() error { return nil }

// links is a file's hard link count (1 when the platform does not say).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
