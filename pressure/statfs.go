package pressure

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Space is a file system's free space and size, in bytes.
type Space struct {
	// Avail is what an unprivileged writer may still use (f_bavail).
	Avail int64 `json:"avail"`
	// Total is the file system's size (f_blocks).
	Total int64 `json:"total"`
}

// FreeFunc reads the free space of the file system that matters (the
// store's). Statfs makes one.
type FreeFunc func() (Space, error)

// Statfs returns a FreeFunc reading statfs(2) of the file system that
// holds path.
func Statfs(path string) FreeFunc {
	return func() (Space, error) {
		var st unix.Statfs_t
		if err := unix.Statfs(path, &st); err != nil {
			return Space{}, fmt.Errorf("free space of %s: %w", path, err)
		}
		bs := int64(st.Bsize)
		return Space{Avail: int64(st.Bavail) * bs, Total: int64(st.Blocks) * bs}, nil
	}
}
