//go:build windows

package schedule

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestProcessExistsWindows: this process exists, a child that has exited
// does not (while its handle is still held, and after), nor does a PID no
// process has; so a claim of a scheduler that died is taken over at once,
// as on Unix, rather than after claimTTL.
func TestProcessExistsWindows(t *testing.T) {
	if !processExists(os.Getpid()) {
		t.Fatal("this process does not exist")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if processExists(pid) {
		t.Errorf("child %d exited, but exists", pid)
	}
	if processExists(-1) || processExists(0) {
		t.Error("a PID no process has exists")
	}
	now := time.Now()
	if c := (&Claim{Host: hostname(t), PID: pid, Since: now}); c.alive(now) {
		t.Errorf("a claim of an exited process is alive: %s", c)
	}
	if c := (&Claim{Host: hostname(t), PID: os.Getpid(), Since: now}); !c.alive(now) {
		t.Errorf("a claim of this process is not alive: %s", c)
	}
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
