package schedule_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestDefaultRun runs real prune and check jobs through the scheduler.
func TestDefaultRun(t *testing.T) {
	e := newEnv(t)
	b := hostStore(t)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	b.Old("core/a/1/1", "core/a/2/2", "core/a/3/3")
	b.Add(storetest.Release{Ident: "core/b/1/1", Deps: []string{"core/gone/1/1"}, ModTime: old})
	e.write("p", schedtest.Prune(b.Root, "@hourly-random"))
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
			if o.Status != schedule.Ran || o.Result.Removed != 2 || !o.Result.OK {
				t.Errorf("prune: %+v", o)
			}
		case schedule.Check:
			if o.Status != schedule.Ran || o.Result.OK || o.Result.Problems == 0 {
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

// One clock. A scheduler whose clock reads 48 hours
// ahead of the wall clock plans with its own clock: releases installed
// just now are two days old to it. They are young by
// the real clock, so they are kept (too-young, saying both ages), and the
// plan warns that its clock is ahead. (Apply's last check judges installs
// in progress by the real clock too: the test below.)
func TestPruneUsesTheSchedulersClock(t *testing.T) {
	e, b := aheadEnv(t)
	s := aheadScheduler(e, b)
	e.clock.Add(2 * time.Hour)
	outs := s.RunDue(context.Background())
	if len(outs) != 1 || outs[0].Status != schedule.Ran || outs[0].Result.Removed != 0 || outs[0].Result.Plan == nil {
		t.Fatalf("a prune at the scheduler's clock (48h ahead) removed %+v, want none (young by the real clock)", outs)
	}
	rep := outs[0].Result.Plan
	for _, r := range rep.Releases {
		if r.Ident == "core/a/3/3" {
			continue
		}
		if r.Action != retention.Keep || len(r.Reasons) == 0 || r.Reasons[0].Code != retention.CodeYoung ||
			!strings.Contains(r.Reasons[0].Text, "by the real clock (50h") {
			t.Errorf("%s: %s %v; want kept as too young by the real clock, 50h old by the scheduler's", r.Ident, r.Action, r.Reasons)
		}
	}
	if len(rep.Warnings) != 1 || rep.Warnings[0].Kind != retention.WarnClockAhead {
		t.Errorf("warnings %v; want the clock-ahead one", rep.Warnings)
	}
}

// A scheduler's clock set ahead (a rehearsal) plans with it, so the
// archive an install downloaded just now looks two days old to the plan;
// Apply's last check judges installs by the real clock and sees it
// (RunJob's documentation): what the install found "Using", before any
// install directory exists, is kept.
func TestPruneAheadClockSeesInstallInProgress(t *testing.T) {
	e, b := aheadEnv(t)
	const app = "core/app/1/1"
	in := hostInstaller(b, 1).Publish(storetest.Archive{Ident: app, Deps: []string{"core/a/1/1"}})
	checked, resume := make(chan struct{}), make(chan struct{})
	in.At = func(pt storetest.Point) error {
		if pt.Top && pt.Step == storetest.StepDepsChecked {
			close(checked)
			<-resume
		}
		return nil
	}
	installed := make(chan error, 1)
	go func() { installed <- in.Install(app) }()
	<-checked

	// No minimum age: only the install in progress keeps core/a/1/1
	// (the real clock would keep every release installed just now).
	s := aheadScheduler(e, b, "min_age = \"none\"\n")
	e.clock.Add(2 * time.Hour)
	outs := s.RunDue(context.Background())
	close(resume)
	if err := <-installed; err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Status != schedule.Ran {
		t.Fatalf("outcomes %+v", outs)
	}
	if _, err := os.Stat(b.PkgPath("core/a/1/1")); err != nil {
		t.Errorf("the prune removed core/a/1/1, which %s's install in progress found Using: %v (result %+v)", app, err, outs[0].Result)
	}
}

// aheadEnv is a scheduler environment whose clock reads 48 hours ahead
// of the wall clock, and a store of three releases of core/a installed
// just now.
func aheadEnv(t *testing.T) (*env, *storetest.Builder) {
	e := newEnv(t)
	e.clock.t = time.Now().Add(48 * time.Hour)
	b := hostStore(t)
	for _, id := range []string{"core/a/1/1", "core/a/2/2", "core/a/3/3"} {
		b.Add(storetest.Release{Ident: id})
	}
	return e, b
}

// aheadScheduler runs the real jobs of an hourly prune keeping one
// release, on b, with extra lines in its [prune] table.
func aheadScheduler(e *env, b *storetest.Builder, extra ...string) *schedule.Scheduler {
	e.write("p", fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@hourly-random\"\nkeep_latest = 1\n%s", b.Root, strings.Join(extra, "")))
	s := e.scheduler()
	s.Run = nil
	e.reload(s)
	return s
}

// A scheduled check judges the store as `hab-gc check` does: a release of
// another target is a notice, which a healthy machine shows, so the check
// passes (counting it); a missing dependency is an error, and it fails.
func TestCheckJobFailsOnErrorsNotNotices(t *testing.T) {
	for _, tc := range []struct {
		name string
		rel  storetest.Release
		ok   bool
	}{
		{"notice only", storetest.Release{Ident: "core/w/1/1", Target: otherTarget()}, true},
		{"an error", storetest.Release{Ident: "core/b/1/1", Deps: []string{"core/gone/1/1"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			b := hostStore(t)
			b.Pkg("core/a/1/1")
			b.Add(tc.rel)
			e.write("c", fmt.Sprintf("fs_root = %q\n[check]\nschedule = \"@hourly-random\"\n", b.Root))
			s := e.scheduler()
			s.Run = nil // the real job
			e.reload(s)
			e.clock.Add(2 * time.Hour)
			outs := s.RunDue(context.Background())
			if len(outs) != 1 || outs[0].Status != schedule.Ran {
				t.Fatalf("outcomes: %+v", outs)
			}
			if r := outs[0].Result; r.OK != tc.ok || r.Problems != 1 {
				t.Errorf("check: OK %v with %d problem(s) %+v; want OK %v with 1", r.OK, r.Problems, r.ProblemList, tc.ok)
			}
		})
	}
}

// otherTarget is a valid target that is not the machine's: a release of
// it is another target's, a notice.
func otherTarget() string {
	if pkgstore.DefaultTarget() == "x86_64-windows" {
		return "x86_64-linux"
	}
	return "x86_64-windows"
}
