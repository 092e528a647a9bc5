//go:build unix

package testtool

import (
	"bufio"
	"os/exec"
	"syscall"
	"testing"
)

// HoldFlock has another process (util-linux flock(1)) hold an exclusive
// flock on path until the test ends, as another hab-gc or an operator's
// script would. It returns once the lock is held. The holder runs in its
// own process group, so that the cleanup ends flock(1) and the sleep it
// runs, which would otherwise outlive the test.
func HoldFlock(t testing.TB, path string) {
	t.Helper()
	flock := Need(t, "flock", "util-linux")
	cmd := exec.Command(flock, "--exclusive", path, "sh", "-c", "echo held; exec sleep 600")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("flock(1) did not take the lock on %s: %q %v", path, line, err)
	}
}
