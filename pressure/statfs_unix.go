//go:build linux || darwin

package pressure

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Statfs reads statfs(2) of the file system that holds path.
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
