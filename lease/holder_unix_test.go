//go:build unix

package lease_test

import (
	"os"
	"syscall"
)

// lockExclusive takes f's exclusive flock, waiting for it.
func lockExclusive(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
