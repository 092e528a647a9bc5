package schedule_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestEditorSaveKeepsSchedule: an editor's save renames
// the file away and writes it again; a reload in between sees it gone.
// That is not a deletion: the schedule keeps its first-seen time (and so
// its ownership of a shared job), and a job it alone owns keeps its
// history.
func TestEditorSaveKeepsSchedule(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	old := prune(root, "@daily-random") + "[check]\nschedule = \"17 * * * *\"\n"
	e.write("old", old)
	s := e.loaded()
	e.clock.Add(time.Hour)
	e.write("young", prune(root, "@daily-random"))
	e.reload(s)
	var shared, check schedule.Job
	for _, j := range s.Jobs() {
		if j.Type == schedule.Check {
			check = j
		} else {
			shared = j
		}
	}
	if shared.Owner != "old" || len(shared.Members) != 2 {
		t.Fatalf("shared job: %+v", shared)
	}
	e.clock.Add(time.Hour)
	s.RunDue(context.Background())
	if e.count(check.Key) != 1 {
		t.Fatalf("check runs: %d", e.count(check.Key))
	}
	before, _ := schedule.LoadState(e.state)

	// The save: rename away, reload, write back, reload.
	f := filepath.Join(e.dir, "old.toml")
	if err := os.Rename(f, f+"~"); err != nil {
		t.Fatal(err)
	}
	e.reload(s)
	e.clock.Add(time.Second)
	e.write("old", old)
	os.Remove(f + "~")
	e.reload(s)

	st, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Schedules["old"].FirstSeen.Equal(before.Schedules["old"].FirstSeen) {
		t.Errorf("first seen reset: %v -> %v", before.Schedules["old"].FirstSeen, st.Schedules["old"].FirstSeen)
	}
	for _, j := range s.Jobs() {
		if j.Key == shared.Key && j.Owner != "old" {
			t.Errorf("ownership passed to %s", j.Owner)
		}
	}
	if js := st.Jobs[check.Key]; js == nil || js.Runs != 1 || js.LastDue == nil {
		t.Errorf("the check it alone owned lost its history: %+v", js)
	}
	e.clock.Add(30 * time.Minute) // 17 past: runs once more, not twice
	s.RunDue(context.Background())
	if e.count(check.Key) != 2 {
		t.Errorf("check runs after the save: %d, want 2", e.count(check.Key))
	}
}

// TestDeletedScheduleIsForgotten: a schedule really deleted is forgotten
// (with its jobs) once it has been gone longer than the grace.
func TestDeletedScheduleIsForgotten(t *testing.T) {
	e := newEnv(t)
	e.write("a", fmt.Sprintf("fs_root = %q\n[check]\nschedule = \"17 * * * *\"\n", e.store()))
	s := e.loaded()
	e.remove("a")
	e.reload(s)
	if len(s.Jobs()) != 0 {
		t.Fatalf("a deleted schedule's job still runs: %+v", s.Jobs())
	}
	e.clock.Add(time.Hour)
	e.reload(s)
	st, _ := schedule.LoadState(e.state)
	if len(st.Schedules) != 0 || len(st.Jobs) != 0 {
		t.Fatalf("not forgotten after an hour: %+v", st)
	}
}
