//go:build unix

package retention_test

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// asNobody has cmd run as user and group 65534 (nobody).
func asNobody(t *testing.T, cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}

// lockedElsewhere reports whether another open file holds an exclusive
// flock on f's file (a shared lock cannot be taken at once).
func lockedElsewhere(t *testing.T, f *os.File) bool {
	err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	return errors.Is(err, unix.EWOULDBLOCK)
}
