//go:build unix

package lease

import (
	"os"

	"golang.org/x/sys/unix"
)

const oNonBlock = unix.O_NONBLOCK

var errWouldBlock error = unix.EWOULDBLOCK

func flockNB(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	return unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
}
