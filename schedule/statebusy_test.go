package schedule_test

import (
	"bufio"
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Issue 20 item 6: a state lock another process keeps (util-linux
// flock(1) on STATE.lock) does not hang the scheduler: Reload gives up
// waiting after a bounded time and goes on with the state in memory, and
// a due job runs.
func TestStateLockHeldByAnotherProcess(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("needs util-linux flock(1) to hold the state's lock from another process")
	}
	e := newEnv(t)
	e.write("a", prune(e.store(), "17 * * * *"))
	cmd := exec.Command("flock", "--exclusive", e.state+".lock", "sh", "-c", "echo held; exec sleep 600")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Its own process group: the cleanup ends flock(1) and the sleep it
	// runs, which would otherwise outlive the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("flock(1) did not take the lock: %q %v", line, err)
	}
	s := e.scheduler()
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.reload(s)
		e.clock.Add(time.Hour)
		s.RunDue(context.Background())
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the scheduler still waits for the state's lock after 3 minutes: hung")
	}
	if n := e.count(onlyJob(t, s).Key); n != 1 {
		t.Errorf("the due job ran %d times, want once", n)
	}
}
