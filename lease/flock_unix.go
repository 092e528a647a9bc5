//go:build unix

package lease

import (
	"os"

	"golang.org/x/sys/unix"
)

const oNonBlock = unix.O_NONBLOCK

// errWouldBlock is flockNB's error when another process holds the lock.
var errWouldBlock error = unix.EWOULDBLOCK

// flockNB takes f's flock, exclusive or shared, without waiting.
func flockNB(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	return unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
}
