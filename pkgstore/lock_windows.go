//go:build windows

package pkgstore

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/windows"
)

const (
	lockExclusive = windows.LOCKFILE_EXCLUSIVE_LOCK
	lockShared    = 0
)

// lockOffset is where the byte Windows locks is: far past the pid the
// lock file holds, since a LockFileEx lock is mandatory (another process
// could not read a locked pid), and past any size the file will have.
// gofrs/flock's Windows lock (LockFileEx on the first byte) is the same
// call; it is not used because it opens the file itself by path, where
// hab-gc opens the lock file through the store's os.Root without
// following a reparse point (internal/safeio.OpenPrivate) and locks that
// handle.
const lockOffset = 1 << 62

// tryFlock takes a LockFileEx lock (how: lockExclusive or lockShared) on
// the handle fd without waiting: false when another handle (another
// process, or another Lock in this one: Windows' locks are per handle, as
// flock's are per open file) holds a conflicting one. Closing the handle
// releases it, as closing a descriptor releases a flock.
func tryFlock(fd uintptr, how int) (bool, error) {
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	err := windows.LockFileEx(windows.Handle(fd), uint32(how)|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, err
}

// flockHolders: Windows has no table of who holds a lock (Linux's
// /proc/locks); the pid in the lock file names the holder.
func flockHolders(fi fs.FileInfo) ([]int, error) { return nil, errors.ErrUnsupported }
