package schedule_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestPressurePruneDelaysNoOtherStore: a [pressure] prune runs in its
// store's worker, as scheduled jobs do: while store
// A's pressure prune runs (held here until the test lets it end), the
// daemon's loop goes on, so store B's hourly check starts at its due time
// and B's own pressure prune starts when B runs short; A's scheduled
// prune, due meanwhile, waits for A's pressure prune instead of failing
// on A's lock, and runs once it ends. Everything is asserted by the order
// of the runs' events; the timeouts only stop a test that fails.
func TestPressurePruneDelaysNoOtherStore(t *testing.T) {
	e := newEnv(t)
	rootA, rootB := e.store(), e.store()
	e.clock.Set(time.Date(2026, 6, 1, 0, 0, 10, 0, time.UTC))
	pressureTable := "[pressure]\nmin_free = \"1GiB\"\nkeep_latest = 1\n"
	e.write("a", prune(rootA, "30 0 * * *")+pressureTable)
	e.write("b", fmt.Sprintf("fs_root = %q\n[check]\nschedule = \"0 * * * *\"\n", rootB)+pressureTable)

	var mu sync.Mutex
	free := map[string]int64{rootA: 0, rootB: 2 << 30} // by FS root
	rootOf := func(path string) string {
		for _, r := range []string{rootA, rootB} {
			if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
				return r
			}
		}
		t.Errorf("no store at %s", path)
		return ""
	}
	setFree := func(root string, n int64) { mu.Lock(); free[root] = n; mu.Unlock() }
	name := func(j schedule.Job) string {
		store := "A"
		if j.FSRoot == rootB {
			store = "B"
		}
		return store + " " + string(j.Type)
	}

	events := make(chan string, 100)
	release := make(chan struct{}) // ends A's pressure prune
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	defer let()
	var notRun []string
	s := e.scheduler()
	s.LockTimeout = retention.NoLockWait // a run that meets a held lock fails at once
	s.NotRun = func(j schedule.Job, why error) {
		mu.Lock()
		notRun = append(notRun, name(j)+": "+why.Error())
		mu.Unlock()
	}
	s.Free = func(store string) (pressure.Space, error) {
		mu.Lock()
		defer mu.Unlock()
		return pressure.Space{Avail: free[rootOf(store)], Total: 100 << 30}, nil
	}
	s.Run = func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
		n := name(j)
		send := func(ev string) {
			select {
			case events <- ev:
			case <-ctx.Done(): // the test is over
			}
		}
		send(n + " start")
		if n == "A pressure" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		if j.Type == schedule.Pressure {
			setFree(j.FSRoot, 2<<30) // it freed enough
		}
		send(n + " end")
		return schedule.RunResult{OK: true}, nil
	}
	e.reload(s)
	if len(s.PressureJobs()) != 2 || len(s.Jobs()) != 2 {
		t.Fatalf("jobs %+v, pressure jobs %+v", s.Jobs(), s.PressureJobs())
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Loop(ctx, nil, 20*time.Millisecond) }()
	defer func() {
		let()
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("Loop did not return")
		}
	}()

	var seen []string
	await := func(want string) {
		t.Helper()
		guard := time.After(20 * time.Second)
		for {
			select {
			case ev := <-events:
				seen = append(seen, ev)
				if ev == want {
					return
				}
			case <-guard:
				t.Fatalf("no %q; events so far %q", want, seen)
			}
		}
	}
	await("A pressure start")
	// 01:00:10: B's hourly check is due, and A's daily prune (00:30).
	e.clock.Set(time.Date(2026, 6, 1, 1, 0, 10, 0, time.UTC))
	await("B check end")
	setFree(rootB, 0)
	await("B pressure end")
	let()
	await("A prune end")

	idx := func(ev string) int { return slices.Index(seen, ev) }
	if i := idx("A pressure end"); i < 0 || i > idx("A prune start") {
		t.Errorf("A's scheduled prune started during its pressure prune: %q", seen)
	}
	for _, ev := range []string{"B check start", "B pressure start"} {
		if idx(ev) > idx("A pressure end") {
			t.Errorf("%s waited for A's pressure prune: %q", ev, seen)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notRun) > 0 {
		t.Errorf("runs failed: %q", notRun)
	}
}
