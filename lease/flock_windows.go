//go:build windows

package lease

import (
	"os"

	"golang.org/x/sys/windows"
)

const oNonBlock = 0

var errWouldBlock error = windows.ERROR_LOCK_VIOLATION

// lockOffset is far past a lease's contents: Windows' locks are
// mandatory, and a reader must still read a locked lease.
const lockOffset = 1 << 62

// flockNB is flock with LockFileEx (per handle, released on close).
func flockNB(f *os.File, exclusive bool) error {
	how := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		how |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	err := windows.LockFileEx(windows.Handle(f.Fd()), how, 0, 1, 0, &ol)
	if err == windows.ERROR_IO_PENDING {
		return errWouldBlock
	}
	return err
}
