//go:build windows

package schedule

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// lockOffset is the byte of the lock file LockFileEx locks: far past any
// size the file will have, since Windows' byte-range locks are mandatory
// and a lock on its first byte would stop others reading it (as
// pkgstore's store lock, pkgstore/lock_windows.go).
const lockOffset = 1 << 62

// flockBounded takes an exclusive LockFileEx lock on the handle, polling
// without blocking (LOCKFILE_FAIL_IMMEDIATELY) for at most timeout, as
// flock_unix.go does with flock(2). Windows' locks are per handle, as
// flock's are per open file: another handle, in another process or in
// this one, holding it makes this wait; closing the handle releases it.
func flockBounded(rc syscall.RawConn, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var lerr error
		if err := rc.Control(func(fd uintptr) {
			ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
			lerr = windows.LockFileEx(windows.Handle(fd), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
		}); err != nil {
			return err
		}
		if !errors.Is(lerr, windows.ERROR_LOCK_VIOLATION) && !errors.Is(lerr, windows.ERROR_IO_PENDING) {
			return lerr
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w (held past the %s wait)", ErrStateBusy, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
