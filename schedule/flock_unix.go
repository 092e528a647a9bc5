//go:build unix

package schedule

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// flockBounded takes the descriptor's exclusive lock, polling without
// blocking for at most timeout.
func flockBounded(rc syscall.RawConn, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var ferr error
		if err := rc.Control(func(fd uintptr) {
			for ferr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB); ferr == unix.EINTR; {
				ferr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB)
			}
		}); err != nil {
			return err
		}
		if ferr != unix.EWOULDBLOCK {
			return ferr
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w (held past the %s wait)", ErrStateBusy, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
