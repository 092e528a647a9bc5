package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// clock is an injected, settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// env is a schedules directory, a state file, stores and a counting runner.
type env struct {
	t     *testing.T
	dir   string
	state string
	clock *clock
	mu    sync.Mutex
	runs  map[string][]time.Time // job key -> run start times
}

func newEnv(t *testing.T) *env {
	return &env{t: t, dir: testtool.TempDir(t), state: filepath.Join(testtool.TempDir(t), "state.json"),
		clock: &clock{t: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}, runs: map[string][]time.Time{}}
}

func (e *env) store() string {
	return hostStore(e.t).Root
}

// hostStore is a new store laid out for the machine's target
// (pkgstore.DefaultTarget), the one a job scans for: x86_64-windows on
// Windows, as Habitat lays releases out there.
func hostStore(t testing.TB) *storetest.Builder {
	t.Helper()
	b := storetest.New(t)
	b.Target = pkgstore.DefaultTarget()
	return b
}

func (e *env) write(name, content string) {
	if err := os.WriteFile(filepath.Join(e.dir, name+".toml"), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) remove(name string) { os.Remove(filepath.Join(e.dir, name+".toml")) }

func (e *env) scheduler() *schedule.Scheduler {
	return &schedule.Scheduler{Dir: e.dir, StatePath: e.state, Clock: e.clock.Now,
		Run: func(ctx context.Context, j schedule.Job, s *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
			e.mu.Lock()
			e.runs[j.Key] = append(e.runs[j.Key], now)
			e.mu.Unlock()
			return schedule.RunResult{OK: true}, nil
		}}
}

// serve runs s.Serve until the test ends, failing it if Serve returns
// an error.
func (e *env) serve(s *schedule.Scheduler) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, nil) }()
	e.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			e.t.Error(err)
		}
	})
}

func (e *env) reload(s *schedule.Scheduler) {
	e.t.Helper()
	probs, err := s.Reload()
	if err != nil || len(probs) > 0 {
		e.t.Fatalf("reload: %v %v", err, probs)
	}
}

func (e *env) count(key string) int { e.mu.Lock(); defer e.mu.Unlock(); return len(e.runs[key]) }

func prune(root, spec string, extra ...string) string {
	return fmt.Sprintf("fs_root = %q\n%s\n[prune]\nschedule = %q\nkeep_latest = 2\n", root, strings.Join(extra, "\n"), spec)
}

// loaded is a scheduler of the environment with its definitions loaded
// (reload).
func (e *env) loaded() *schedule.Scheduler {
	e.t.Helper()
	s := e.scheduler()
	e.reload(s)
	return s
}

func onlyJob(t *testing.T, s *schedule.Scheduler) schedule.Job {
	t.Helper()
	if len(s.Jobs()) != 1 {
		t.Fatalf("want 1 job, got %+v", s.Jobs())
	}
	return s.Jobs()[0]
}

// minute17Job is an environment with one prune at minute 17 of every hour,
// loaded by its scheduler.
func minute17Job(t *testing.T) (*env, *schedule.Scheduler, schedule.Job) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "17 * * * *"))
	s := e.loaded()
	return e, s, onlyJob(t, s)
}

// runFirstDue moves minute17Job's clock to 00:20 and runs the 00:17 run.
func (e *env) runFirstDue(s *schedule.Scheduler, j schedule.Job) {
	e.t.Helper()
	e.clock.Add(20 * time.Minute)
	e.runDueWant(s, j.Key, 1, "runs = %d, want 1")
}

// runDueWant runs what is due (s.RunDue) and fails the test at once
// unless the job key has then run want times in all; failf is the
// failure's format, given that count.
func (e *env) runDueWant(s *schedule.Scheduler, key string, want int, failf string) {
	e.t.Helper()
	s.RunDue(context.Background())
	if n := e.count(key); n != want {
		e.t.Fatalf(failf, n)
	}
}

func TestDeduplication(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("team-b", prune(root, "@daily-random", `created = "2026-01-02T00:00:00Z"`))
	e.write("team-a", prune(root, "@daily-random", `created = "2026-01-03T00:00:00Z"`))
	// The same store through /x/../ and through a symlink (where one
	// can be made).
	e.write("team-c", prune(root+"/hab/..", "@DAILY-RANDOM", `created = "2026-01-04T00:00:00Z"`))
	members := "team-b,team-a,team-c"
	if link := filepath.Join(testtool.TempDir(t), "link"); testtool.Symlink(t, root, link) {
		e.write("team-d", prune(link, "@daily-random", `created = "2026-01-05T00:00:00Z"`))
		members += ",team-d"
	}
	s := e.loaded()
	j := onlyJob(t, s)
	if j.Owner != "team-b" || strings.Join(j.Members, ",") != members {
		t.Fatalf("owner %s members %v", j.Owner, j.Members)
	}
	// One run, not four.
	e.clock.Add(25 * time.Hour)
	e.runDueWant(s, j.Key, 1, "runs = %d")
}

func TestExplicitCronNeverMerged(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("a", prune(root, "5 4 * * *"))
	e.write("b", prune(root, "5 4 * * *"))
	e.write("c", prune(root, "5 5 * * *"))
	s := e.loaded()
	if len(s.Jobs()) != 3 {
		t.Fatalf("jobs = %+v", s.Jobs())
	}
	e.clock.Add(48 * time.Hour)
	s.RunDue(context.Background())
	for _, j := range s.Jobs() {
		if e.count(j.Key) != 1 {
			t.Errorf("%s (%s) ran %d times", j.Owner, j.Cron, e.count(j.Key))
		}
	}
}

func TestGroupChanges(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("old", prune(root, "@daily-random", `created = "2026-01-01T00:00:00Z"`))
	e.write("mid", prune(root, "@daily-random", `created = "2026-01-02T00:00:00Z"`))
	e.write("new", prune(root, "@daily-random", `created = "2026-01-03T00:00:00Z"`))
	s := e.loaded()
	group := onlyJob(t, s)

	// Changing one schedule's parameters: it leaves at once, the group
	// keeps its time.
	e.write("new", strings.Replace(prune(root, "@daily-random", `created = "2026-01-03T00:00:00Z"`), "keep_latest = 2", "keep_latest = 5", 1))
	e.reload(s)
	if len(s.Jobs()) != 2 {
		t.Fatalf("jobs: %+v", s.Jobs())
	}
	for _, j := range s.Jobs() {
		if j.Key == group.Key && (j.Cron != group.Cron || strings.Join(j.Members, ",") != "old,mid") {
			t.Fatalf("group changed: %+v", j)
		}
		if j.Key != group.Key && j.Owner != "new" {
			t.Fatalf("leaver: %+v", j)
		}
	}
	// Changing the store does the same.
	e.write("mid", prune(e.store(), "@daily-random", `created = "2026-01-02T00:00:00Z"`))
	e.reload(s)
	if len(s.Jobs()) != 3 {
		t.Fatalf("after store change: %+v", s.Jobs())
	}

	// Back to one group of two; then the owner is deleted: the next oldest
	// owns the job at the same time, and the run due meanwhile happens.
	e.write("mid", prune(root, "@daily-random", `created = "2026-01-02T00:00:00Z"`))
	e.reload(s)
	e.clock.Add(24 * time.Hour)
	s.RunDue(context.Background())
	before := e.count(group.Key)
	e.clock.Add(23*time.Hour + 59*time.Minute)
	e.remove("old")
	e.reload(s)
	var j schedule.Job
	for _, x := range s.Jobs() {
		if x.Key == group.Key {
			j = x
		}
	}
	if j.Owner != "mid" || j.Cron != group.Cron {
		t.Fatalf("after owner deletion: %+v", j)
	}
	e.clock.Add(2 * time.Minute)
	s.RunDue(context.Background())
	if e.count(group.Key) != before+1 {
		t.Fatalf("a run was missed across the owner change: %d -> %d", before, e.count(group.Key))
	}
}

func TestNewScheduleDoesNotRunAtOnce(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "* * * * *"))
	s := e.loaded()
	j := onlyJob(t, s)
	if outs := s.RunDue(context.Background()); len(outs) != 0 {
		t.Fatalf("ran at once: %+v", outs)
	}
	e.clock.Add(time.Minute)
	e.runDueWant(s, j.Key, 1, "runs = %d")
}

func TestRestartAndCatchUp(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "@hourly-random"))
	e.write("b", prune(e.store(), "@daily-random"))
	s := e.loaded()
	first := s.Jobs()
	e.clock.Add(2 * time.Hour)
	s.RunDue(context.Background())

	// Down for three days; a new scheduler (a restart) with the same state.
	e.clock.Add(72 * time.Hour)
	s2 := e.scheduler()
	e.reload(s2)
	for i, j := range s2.Jobs() {
		if j.Key != first[i].Key || j.Owner != first[i].Owner || j.Cron != first[i].Cron {
			t.Fatalf("restart changed job %d: %+v vs %+v", i, j, first[i])
		}
	}
	counts := map[string]int{}
	for _, j := range first {
		counts[j.Key] = e.count(j.Key)
	}
	s2.RunDue(context.Background())
	s2.RunDue(context.Background()) // again, same minute: nothing more
	for _, j := range first {
		if got := e.count(j.Key) - counts[j.Key]; got != 1 {
			t.Fatalf("%s: catch-up after 3 days ran %d times, want once", j.Cron, got)
		}
	}
	st, _ := schedule.LoadState(e.state)
	for _, j := range first {
		js := st.Jobs[j.Key]
		if js.LastRun == nil || js.Runs != e.count(j.Key) || js.LastDue == nil || js.LastDue.After(e.clock.Now()) {
			t.Fatalf("state: %+v", js)
		}
	}
	if len(st.Schedules) != 2 || st.Schedules["a"].FirstSeen.IsZero() {
		t.Fatalf("first-seen not persisted: %+v", st.Schedules)
	}
}

func TestNoRunTwiceForOneDueTime(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "@hourly-random"))
	s1, s2 := e.scheduler(), e.scheduler()
	e.reload(s1)
	e.reload(s2)
	e.clock.Add(61 * time.Minute)
	var wg sync.WaitGroup
	for _, s := range []*schedule.Scheduler{s1, s2} {
		wg.Add(1)
		go func() { defer wg.Done(); s.LockTimeout = 5 * time.Second; s.RunDue(context.Background()) }()
	}
	wg.Wait()
	if n := e.count(onlyJob(t, s1).Key); n != 1 {
		t.Fatalf("one due time ran %d times", n)
	}
}

func TestLockContentionWaitsAndRetries(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("a", prune(root, "@hourly-random"))
	s := e.scheduler()
	s.LockTimeout = 200 * time.Millisecond
	e.reload(s)
	j := onlyJob(t, s)
	unlock := storetest.HoldLock(t, root)
	e.clock.Add(61 * time.Minute)
	start := time.Now()
	outs := s.RunDue(context.Background())
	if len(outs) != 1 || outs[0].Status == schedule.Ran || !errors.Is(outs[0].Err, pkgstore.ErrLocked) || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("while locked: %+v", outs)
	}
	state, _ := schedule.LoadState(e.state)
	if !strings.Contains(state.Jobs[j.Key].LastError, "locked") {
		t.Fatalf("the failed attempt is not recorded: %+v", state.Jobs[j.Key])
	}
	// Released: it runs at the next tick; it was not dropped.
	unlock()
	e.runDueWant(s, j.Key, 1, "runs = %d")
}

func TestBadDefinitions(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("good", prune(root, "@daily-random"))
	e.write("badspec", prune(root, "@fortnightly-random"))
	e.write("nokeep", fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@daily\"\n", root))
	e.write("typo", fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@daily\"\nkeep_lastest = 1\n", root))
	e.write("badtime", prune(root, "@daily", `created = "yesterday"`))
	e.write("noroot", "[check]\nschedule = \"@daily\"\n")
	e.write("badage", strings.Replace(prune(root, "@daily"), "keep_latest = 2", "keep_latest = 2\nmin_age = \"soon\"", 1))
	s := e.scheduler()
	probs, err := s.Reload()
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprint(probs)
	for _, want := range []string{
		"badspec.toml:4:1: field prune.schedule",
		"nokeep.toml:2:1: field prune.keep_latest: missing",
		"typo.toml:4:1: unknown field prune.keep_lastest",
		"badtime.toml:2:1: field created",
		"noroot.toml:1:1: field fs_root",
		"badage.toml:6:1: field prune.min_age",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	for _, p := range probs {
		if !errors.Is(p, schedule.ErrDefinition) {
			t.Errorf("%v does not wrap ErrDefinition", p)
		}
	}
	if j := onlyJob(t, s); j.Owner != "good" {
		t.Fatalf("the good file did not load: %+v", j)
	}
}

func TestCreatedDefaultsToFirstSeen(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("zeta", prune(root, "@daily-random"))
	s := e.loaded()
	e.clock.Add(time.Hour)
	e.write("alpha", prune(root, "@daily-random"))
	e.reload(s)
	if j := onlyJob(t, s); j.Owner != "zeta" {
		t.Fatalf("owner %s: the first seen should own the job", j.Owner)
	}
	// A restart keeps it (first-seen times are persisted).
	s2 := e.scheduler()
	e.reload(s2)
	if j := onlyJob(t, s2); j.Owner != "zeta" {
		t.Fatalf("after restart owner %s", j.Owner)
	}
}

// hostInstaller installs into b's store as Habitat does on this machine:
// its active target, and that of the archives it is given without one,
// is b's.
func hostInstaller(b *storetest.Builder, seed uint64) *storetest.Installer {
	in := storetest.NewInstaller(b.Root, seed)
	in.Target = b.Target
	return in
}
