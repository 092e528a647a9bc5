package schedule_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestDefaultRun runs real prune and check jobs through the scheduler.
func TestDefaultRun(t *testing.T) {
	e := newEnv(t)
	b := storetest.New(t)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range []string{"core/a/1/1", "core/a/2/2", "core/a/3/3"} {
		b.Add(storetest.Release{Ident: id, ModTime: old})
	}
	b.Add(storetest.Release{Ident: "core/b/1/1", Deps: []string{"core/gone/1/1"}, ModTime: old})
	e.write("p", fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@hourly-random\"\nkeep_latest = 1\nmin_age = \"none\"\n", b.Root))
	e.write("c", fmt.Sprintf("fs_root = %q\n[check]\nschedule = \"@hourly-random\"\n", b.Root))
	s := e.scheduler()
	s.Run = nil // the real jobs
	e.reload(s)
	e.clock.Add(2 * time.Hour)
	outs := s.RunDue(context.Background())
	if len(outs) != 2 {
		t.Fatalf("outcomes: %+v", outs)
	}
	for _, o := range outs {
		switch o.Job.Type {
		case schedule.Prune:
			if !o.Ran || o.Result.Removed != 2 || !o.Result.OK {
				t.Errorf("prune: %+v", o)
			}
		case schedule.Check:
			if !o.Ran || o.Result.OK || o.Result.Problems == 0 {
				t.Errorf("check: %+v", o)
			}
		}
	}
	if _, err := os.Stat(b.PkgPath("core/a/1/1")); err == nil {
		t.Error("prune did not remove core/a/1/1")
	}
	st, _ := schedule.LoadState(e.state)
	for _, j := range s.Jobs() {
		if js := st.Jobs[j.Key]; js.Runs != 1 || js.LastRun == nil || js.LastRun.End.Before(js.LastRun.Start) {
			t.Errorf("state of %s: %+v", j.Type, js)
		}
	}
}

// Issue 13 item 3: one clock. A scheduler whose clock reads 48 hours
// ahead of the wall clock plans and applies with its own clock: releases
// installed just now are two days old to it, and removed.
func TestPruneUsesTheSchedulersClock(t *testing.T) {
	e := newEnv(t)
	e.clock.t = time.Now().Add(48 * time.Hour)
	b := storetest.New(t)
	for _, id := range []string{"core/a/1/1", "core/a/2/2", "core/a/3/3"} {
		b.Add(storetest.Release{Ident: id})
	}
	e.write("p", fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@hourly-random\"\nkeep_latest = 1\n", b.Root))
	s := e.scheduler()
	s.Run = nil
	e.reload(s)
	e.clock.Add(2 * time.Hour)
	outs := s.RunDue(context.Background())
	if len(outs) != 1 || !outs[0].Ran || outs[0].Result.Removed != 2 {
		t.Fatalf("a prune at the scheduler's clock (48h ahead) removed %+v, want 2", outs)
	}
}
