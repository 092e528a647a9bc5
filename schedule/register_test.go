package schedule_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// The scheduler canonicalises the store itself: definitions made in code
// whose store differs only by a trailing slash share one job.
func TestBuildJobsCanonicalisesTheStore(t *testing.T) {
	root := hostStore(t).Root
	spec, err := schedule.ParseSpec("@daily-random")
	if err != nil {
		t.Fatal(err)
	}
	jobs := []schedule.JobDef{{Type: schedule.Prune, Spec: spec, Params: schedule.Params{KeepLatest: 2}}}
	defs := []schedule.Definition{
		{Name: "a", FSRoot: root, Store: filepath.Join(root, "hab/pkgs"), Jobs: jobs},
		{Name: "b", FSRoot: root + "/", Store: filepath.Join(root, "hab/pkgs") + "/", Jobs: jobs},
	}
	s := &schedule.Scheduler{StatePath: filepath.Join(testtool.TempDir(t), "state.json"), ReadOnly: true}
	if err := s.Register(defs...); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	got := s.Jobs()
	if len(got) != 1 {
		t.Fatalf("%d jobs, want 1: %+v", len(got), got)
	}
}

func pruneJob(t *testing.T, spec string, keep int) schedule.JobDef {
	t.Helper()
	s, err := schedule.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return schedule.JobDef{Type: schedule.Prune, Spec: s, Params: schedule.Params{KeepLatest: keep}}
}

// Definitions registered from code merge as files do; a
// trigger runs the job now, counts as its due run, and concurrent
// triggers share one run.
func TestRegisterAndTrigger(t *testing.T) {
	e := newEnv(t)
	root := hostStore(t).Root
	s := e.scheduler()
	s.Dir = ""
	var mu sync.Mutex
	runs := 0
	release := make(chan struct{})
	s.Run = func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		<-release
		return schedule.RunResult{OK: true}, nil
	}
	var defs []schedule.Definition
	for _, c := range []struct{ name, fsRoot string }{{"redis", root}, {"nginx", root + "/"}} {
		d, err := schedule.NewDefinition(c.name, c.fsRoot, time.Time{}, pruneJob(t, "@daily-random", 2))
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, d)
	}
	if err := s.Register(defs...); err != nil {
		t.Fatal(err)
	}
	e.reload(s)
	jobs := s.Jobs()
	if len(jobs) != 1 || len(jobs[0].Members) != 2 {
		t.Fatalf("jobs: %+v", jobs)
	}
	key := jobs[0].Key
	sts, err := s.Status()
	if err != nil || len(sts) != 1 || sts[0].Key != key || !sts[0].Next.After(e.clock.Now()) {
		t.Fatalf("Status: %+v %v", sts, err)
	}
	e.clock.Add(48 * time.Hour) // due now

	// Three triggers at once: one run, three identical outcomes.
	var wg sync.WaitGroup
	outs := make([]schedule.RunOutcome, 3)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := s.Trigger(context.Background(), key)
			if err != nil {
				t.Error(err)
			}
			outs[i] = o
		}()
	}
	time.Sleep(200 * time.Millisecond)
	close(release)
	wg.Wait()
	if runs > 2 {
		t.Fatalf("%d runs for three simultaneous triggers", runs)
	}
	for _, o := range outs {
		if o.Status != schedule.Ran {
			t.Fatalf("outcome %+v", o)
		}
	}
	// The trigger was the due run: nothing is due any more.
	runsBefore := runs
	if got := s.RunDue(context.Background()); len(got) != 0 || runs != runsBefore {
		t.Fatalf("after a trigger, RunDue ran %+v", got)
	}
	if _, err := s.Trigger(context.Background(), "nope"); err == nil {
		t.Fatal("a trigger of an unknown job")
	}
}

// The scheduler's logger reaches Apply: each removal is
// logged through it (at DEBUG).
func TestSchedulerLogsApply(t *testing.T) {
	e := newEnv(t)
	b := hostStore(t)
	b.Old("core/a/1/1", "core/a/2/2")
	e.write("p", "fs_root = "+strconv.Quote(b.Root)+"\n[prune]\nschedule = \"@hourly-random\"\nkeep_latest = 1\nmin_age = \"none\"\n")
	var buf bytes.Buffer
	var mu sync.Mutex
	s := e.scheduler()
	s.Run = nil
	s.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e.reload(s)
	e.clock.Add(2 * time.Hour)
	if outs := s.RunDue(context.Background()); len(outs) != 1 || outs[0].Result.Removed != 1 {
		t.Fatalf("%+v", outs)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(buf.String(), "core/a/1/1") {
		t.Fatalf("the removal of core/a/1/1 is not in the scheduler's log:\n%s", buf.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
