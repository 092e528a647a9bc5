//go:build unix

package artifactcache

import (
	"io/fs"
	"os"
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

// openedID is the identity of the archive open as r: on Unix Lstat's
// device and inode, checked against r's already.
func openedID(_ *os.File, fi fs.FileInfo) fileID { return idOf(fi) }

// removeHandle: Unix removes by rename and unlink (removeOne).
func (c *Cache) removeHandle(File) (FileOutcome, bool) { return FileOutcome{}, false }
