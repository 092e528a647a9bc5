package schedule_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// badStates are state files a scheduler sets aside and goes on from:
// garbage, and one larger than the 64 MiB it reads (sparse).
var badStates = map[string]func(t *testing.T, path string){
	"garbage": func(t *testing.T, path string) {
		if err := os.WriteFile(path, []byte("\x00\x17not json"), 0o644); err != nil {
			t.Fatal(err)
		}
	},
	"oversized": func(t *testing.T, path string) {
		if err := os.WriteFile(path, []byte(`{"version":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, 64<<20+1); err != nil {
			t.Fatal(err)
		}
	},
}

// definedBefore writes a prune at minute 17 whose file dates from the
// day before the environment's clock (2026-06-01 00:00).
func definedBefore(t *testing.T, e *env) {
	e.write("a", prune(e.store(), "17 * * * *"))
	old := time.Date(2026, 5, 31, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(e.dir, "a.toml"), old, old); err != nil {
		t.Fatal(err)
	}
}

// TestBadStateAtStartCatchesUp: a scheduler starting on a damaged or
// oversized state file sets it aside (named in an ERROR line), goes on,
// and runs once the due time its job's definition has seen (00:17, the
// definition dates from the day before), as after a daemon was down
// across it; not twice.
func TestBadStateAtStartCatchesUp(t *testing.T) {
	t.Parallel()
	for name, bad := range badStates {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			definedBefore(t, e)
			bad(t, e.state)
			e.clock.Set(time.Date(2026, 6, 1, 0, 20, 0, 0, time.UTC))
			var logs strings.Builder
			s := e.scheduler()
			s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			if _, err := s.Reload(); err != nil {
				t.Fatalf("a %s state stops the start: %v", name, err)
			}
			aside, _ := filepath.Glob(e.state + ".corrupt-*")
			if len(aside) != 1 || !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), aside[0]) {
				t.Fatalf("set aside as %v; the log does not name it at ERROR:\n%s", aside, logs.String())
			}
			j := onlyJob(t, s)
			e.runDueWant(s, j.Key, 1, "runs = %d after the state was lost, want the 00:17 due time run once")
			e.runDueWant(s, j.Key, 1, "runs = %d at a second tick, want 1")
			if st, err := schedule.LoadState(e.state); err != nil || st.Jobs[j.Key] == nil || st.Jobs[j.Key].Runs != 1 {
				t.Fatalf("the state is not rebuilt: %v %+v", err, st)
			}
		})
	}
}

// TestBadStateWhileRunningGoesOn: the state file turned damaged or
// oversized under a running scheduler is set aside at the next tick, and
// the job goes on from memory: the due time that ran is not run again,
// the next one runs.
func TestBadStateWhileRunningGoesOn(t *testing.T) {
	t.Parallel()
	for name, bad := range badStates {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, s, j := minute17Job(t)
			e.runFirstDue(s, j) // 00:17 ran
			bad(t, e.state)
			e.runDueWant(s, j.Key, 1, "runs = %d once the state was damaged, want 1 (00:17 ran)")
			if aside, _ := filepath.Glob(e.state + ".corrupt-*"); len(aside) != 1 {
				t.Fatalf("set aside as %v, want one file", aside)
			}
			e.clock.Add(time.Hour)
			e.runDueWant(s, j.Key, 2, "runs = %d at 01:20, want 2")
		})
	}
}

// TestUnwritableStateHistoryWitness: with a state file that cannot be
// written (a read-only mount of its directory), each new scheduler (as
// `daemon --once` from cron) finds the prune's due time unrecorded; the
// store's history, which the run appended to, witnesses it, and it does
// not run again. The next due time runs.
func TestUnwritableStateHistoryWitness(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root for a read-only bind mount")
	}
	e := newEnv(t)
	e.write("a", prune(e.store(), "17 * * * *"))
	e.loaded() // the job recorded at 00:00
	roMount(t, filepath.Dir(e.state))
	ran := 0
	once := func(at time.Time) []schedule.RunOutcome {
		t.Helper()
		e.clock.Set(at)
		s := e.scheduler()
		s.Run = func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
			ran++
			return schedule.DefaultRun(ctx, j, st, now)
		}
		if _, err := s.Reload(); err != nil {
			t.Fatal(err)
		}
		return s.RunOnce(context.Background())
	}
	at := time.Date(2026, 6, 1, 0, 20, 0, 0, time.UTC)
	if outs := once(at); ran != 1 || len(outs) != 1 || outs[0].Status != schedule.Ran || outs[0].Result.HistoryError != "" {
		t.Fatalf("the first --once: %d runs, %+v", ran, outs)
	}
	for i := 1; i <= 3; i++ {
		outs := once(at.Add(time.Duration(i) * time.Minute))
		if ran != 1 || len(outs) != 1 || outs[0].Status != schedule.AlreadyRan {
			t.Fatalf("--once #%d: %d runs in all, %+v; want the due time skipped as already run", i+1, ran, outs)
		}
	}
	if once(at.Add(time.Hour)); ran != 2 {
		t.Fatalf("01:20: %d runs in all, want the 01:17 due time run", ran)
	}
}
