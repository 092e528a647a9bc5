package schedule_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestJobMissingFromStateStillRuns: a job that the state
// file no longer holds (the file was deleted while the daemon runs) is
// restored from what the scheduler knows and keeps running; the due time
// it already ran is not run again.
func TestJobMissingFromStateStillRuns(t *testing.T) {
	e, s, j := minute17Job(t)
	e.runFirstDue(s, j)
	if err := os.Remove(e.state); err != nil {
		t.Fatal(err)
	}
	s.RunDue(context.Background()) // same hour: nothing due
	if e.count(j.Key) != 1 {
		t.Fatalf("the due time that ran was run again after the state was lost: %d runs", e.count(j.Key))
	}
	e.clock.Add(time.Hour) // 01:20
	s.RunDue(context.Background())
	if e.count(j.Key) != 2 {
		t.Fatalf("after the state file was deleted the job ran %d times in total, want 2", e.count(j.Key))
	}
	st, err := schedule.LoadState(e.state)
	if err != nil || st.Jobs[j.Key] == nil || st.Jobs[j.Key].Runs != 2 {
		t.Fatalf("the job is not back in the state: %v %+v", err, st)
	}
	if _, ok := st.Schedules["a"]; !ok {
		t.Fatalf("the schedule is not back in the state: %+v", st.Schedules)
	}
}

// TestStateSharedByTwoDirectories: two schedulers with
// different schedules directories on one state file (the default path
// with no --state) keep each other's schedules and jobs: each runs its
// own, and neither reload deletes the other's.
func TestStateSharedByTwoDirectories(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("a", prune(root, "17 * * * *"))
	other := testtool.TempDir(t)
	if err := os.WriteFile(filepath.Join(other, "b.toml"), []byte(prune(root, "43 * * * *")), 0o644); err != nil {
		t.Fatal(err)
	}
	sa := e.scheduler()
	sb := e.scheduler()
	sb.Dir = other
	e.reload(sa)
	e.reload(sb)
	ja, jb := onlyJob(t, sa), onlyJob(t, sb)
	for h := 0; h < 3; h++ {
		e.clock.Add(time.Hour)
		e.reload(sa) // each reload used to delete the other's jobs
		sb.RunDue(context.Background())
		e.reload(sb)
		sa.RunDue(context.Background())
	}
	if e.count(ja.Key) != 3 || e.count(jb.Key) != 3 {
		t.Fatalf("runs: a %d, b %d, want 3 each", e.count(ja.Key), e.count(jb.Key))
	}
	st, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if st.Jobs[ja.Key] == nil || st.Jobs[jb.Key] == nil || st.Jobs[ja.Key].Runs != 3 || st.Jobs[jb.Key].Runs != 3 {
		t.Fatalf("state: %+v", st.Jobs)
	}
	first := st.Schedules["a"].FirstSeen
	if !first.Equal(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("a's first-seen time moved: %v", first)
	}
}

// TestReloadAfterStateLossKeepsMemory: a reload after
// the state file was deleted (a definition edited, SIGHUP) takes the
// state of the jobs and schedules the file lost from the scheduler's
// memory, not as new: a due time that passed before the reload (its
// store's worker was busy) still runs, the job's runs are kept, and the
// schedule keeps its first-seen time (its ownership).
func TestReloadAfterStateLossKeepsMemory(t *testing.T) {
	e, s, j := minute17Job(t)
	e.runFirstDue(s, j)
	before, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.state); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Hour) // 01:20: 01:17 is due, and no tick ran it yet
	e.reload(s)
	s.RunDue(context.Background())
	if e.count(j.Key) != 2 {
		t.Fatalf("the 01:17 run due before the reload: %d runs in total, want 2", e.count(j.Key))
	}
	st, err := schedule.LoadState(e.state)
	if err != nil || st.Jobs[j.Key] == nil {
		t.Fatalf("the job is not in the state: %v %+v", err, st)
	}
	if st.Jobs[j.Key].Runs != 2 || !st.Jobs[j.Key].Since.Equal(before.Jobs[j.Key].Since) {
		t.Errorf("job state %+v, want 2 runs since %s", st.Jobs[j.Key], before.Jobs[j.Key].Since)
	}
	if got, want := st.Schedules["a"].FirstSeen, before.Schedules["a"].FirstSeen; !got.Equal(want) {
		t.Errorf("the schedule's first-seen time is %s, was %s", got, want)
	}
}
