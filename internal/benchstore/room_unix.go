//go:build linux || darwin

package benchstore

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Per release, a generated store takes about 29 KiB of disk (five small
// files of one block each and two directories) and 7 inodes. The check
// before generating asks for a margin over that.
const (
	bytesPerRelease  = 36 << 10
	inodesPerRelease = 8
	// reserve is left free on top of the store itself.
	reserve = 1 << 30
)

// lockFile takes f's exclusive flock, waiting for it; unlock releases it.
func lockFile(f *os.File) (unlock func(), err error) {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return nil, fmt.Errorf("benchstore: lock %s: %w", f.Name(), err)
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN) }, nil
}

// checkRoom says why a store of n releases cannot be generated under dir,
// or nil when its file system has room for it.
func checkRoom(dir string, n int) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("benchstore: cannot check the free space under %s: %w", dir, err)
	}
	needBytes := uint64(n)*bytesPerRelease + reserve
	needInodes := uint64(n) * inodesPerRelease
	freeBytes := st.Bavail * uint64(st.Bsize)
	// A file system without inode counts (Files == 0, as btrfs) has no
	// fixed limit.
	if freeBytes < needBytes || (st.Files > 0 && st.Ffree < needInodes) {
		return fmt.Errorf("benchstore: a store of %d releases needs about %d MiB and %d inodes free under %s; it has %d MiB and %d inodes free: skipped (set TMPDIR to a larger file system)",
			n, needBytes>>20, needInodes, dir, freeBytes>>20, st.Ffree)
	}
	return nil
}
