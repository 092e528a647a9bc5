package schedule_test

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// Issue 20 item 6: a state lock another process keeps (util-linux
// flock(1) on STATE.lock) does not hang the scheduler: Reload gives up
// waiting after a bounded time and goes on with the state in memory, and
// a due job runs.
func TestStateLockHeldByAnotherProcess(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "17 * * * *"))
	testtool.HoldFlock(t, e.state+".lock")
	s := e.scheduler()
	// Each of the five updates below waits this long, then fails with
	// ErrStateBusy (the default wait would make the test take 50 s).
	s.StateLockTimeout = 200 * time.Millisecond
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
