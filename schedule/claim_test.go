package schedule_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestTwoSchedulersCheckOncePerDueTime (issue 25 item 11): two schedulers
// sharing a state file run each due time of a check once, not "rarely
// twice": the due time is claimed under the state's lock before the check
// runs (a check holds the store's lock only shared).
func TestTwoSchedulersCheckOncePerDueTime(t *testing.T) {
	e := newEnv(t)
	e.write("c", fmt.Sprintf("fs_root = %q\n[check]\nschedule = \"* * * * *\"\n", e.store()))
	var mu sync.Mutex
	runs := map[time.Time]int{}
	mk := func() *schedule.Scheduler {
		s := e.scheduler()
		s.Run = func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) schedule.RunResult {
			mu.Lock()
			runs[now.Truncate(time.Minute)]++
			mu.Unlock()
			time.Sleep(5 * time.Millisecond) // a check takes a while
			return schedule.RunResult{OK: true}
		}
		return s
	}
	s1, s2 := mk(), mk()
	e.reload(s1)
	e.reload(s2)
	const due = 20
	for i := 0; i < due; i++ {
		e.clock.Add(time.Minute)
		var wg sync.WaitGroup
		for _, s := range []*schedule.Scheduler{s1, s2} {
			wg.Add(1)
			go func() { defer wg.Done(); s.RunDue(context.Background()) }()
		}
		wg.Wait()
	}
	total := 0
	for m, n := range runs {
		total += n
		if n != 1 {
			t.Errorf("due time %s checked %d times", m.Format(time.TimeOnly), n)
		}
	}
	if total != due || len(runs) != due {
		t.Fatalf("%d checks for %d due times (%d distinct)", total, due, len(runs))
	}
	st, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, js := range st.Jobs {
		if js.Claim != nil {
			t.Fatalf("a claim is left after the runs: %+v", js.Claim)
		}
	}
}
