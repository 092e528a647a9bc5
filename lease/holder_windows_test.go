//go:build windows

package lease_test

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockExclusive takes f's exclusive lock as a lease holder does (the
// byte LockFileEx locks, far past the contents), waiting for it.
func lockExclusive(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: 1 << 30}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}
