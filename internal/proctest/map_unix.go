//go:build unix

package proctest

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only and private.
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
}
