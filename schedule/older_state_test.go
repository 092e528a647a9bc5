package schedule_test

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestReloadAfterOlderStateKeepsRuns: the
// state file replaced by an older copy (a backup restored, a deploy that
// ships one, a file the daemon could not write while it ran) that still
// holds the job, but not its last run: a reload keeps the later run this
// scheduler remembers, so the due time that ran is not run again.
func TestReloadAfterOlderStateKeepsRuns(t *testing.T) {
	e, s, j := minute17Job(t)
	older, err := os.ReadFile(e.state) // the job, never run
	if err != nil {
		t.Fatal(err)
	}
	e.runFirstDue(s, j)
	if err := os.WriteFile(e.state, older, 0o644); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(10 * time.Minute) // 00:30: nothing new is due
	e.reload(s)
	s.RunDue(context.Background())
	if n := e.count(j.Key); n != 1 {
		t.Fatalf("the 00:17 due time ran %d times: the reload of an older state file forgot its run", n)
	}
	e.clock.Add(time.Hour) // 01:30: 01:17 is due
	s.RunDue(context.Background())
	if n := e.count(j.Key); n != 2 {
		t.Fatalf("runs = %d, want 2", n)
	}
}

// TestReloadAfterLossThenOlderState: the
// state file lost and the daemon restarted (its jobs start anew, after the
// due time that ran), then an older copy of the file put back, which holds
// the job from before that run: the reload keeps the later start, and
// the due time that ran before the loss is not run again.
func TestReloadAfterLossThenOlderState(t *testing.T) {
	e, s, j := minute17Job(t)
	older, err := os.ReadFile(e.state)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(20 * time.Minute) // 00:20: 00:17 runs
	s.RunDue(context.Background())
	if err := os.Remove(e.state); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(5 * time.Minute)
	s = e.scheduler() // restarted without the state
	e.reload(s)
	if err := os.WriteFile(e.state, older, 0o644); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(5 * time.Minute) // 00:30
	e.reload(s)
	s.RunDue(context.Background())
	if n := e.count(j.Key); n != 1 {
		t.Fatalf("the 00:17 due time ran %d times", n)
	}
}
