//go:build unix

package schedule

import (
	"errors"

	"golang.org/x/sys/unix"
)

// processExists reports whether a process pid exists on this machine
// (kill with signal 0; EPERM: it exists, another user's).
func processExists(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
