package schedule_test

import (
	"context"
	"testing"
	"time"
)

// TestCatchUpSurvivesRestarts: a missed run's catch-up
// time is kept in the state, so a daemon restarting every few minutes
// (a crash loop, a flapping container) still runs the missed job within
// the spread of its first start, instead of re-arming the delay each time.
func TestCatchUpSurvivesRestarts(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "17 3 * * *"))
	s := e.scheduler()
	s.Machine = "m-7" // its delay for this job is several minutes
	e.reload(s)
	j := onlyJob(t, s)
	e.clock.Add(72 * time.Hour) // down three days
	boot := e.clock.Now()
	const spread = 20 * time.Minute
	for e.clock.Now().Sub(boot) < 2*spread && e.count(j.Key) == 0 {
		s := e.scheduler() // a restart every 3 minutes
		s.Machine, s.CatchUpSpread = "m-7", spread
		e.reload(s)
		for i := 0; i < 3 && e.count(j.Key) == 0; i++ {
			s.RunDue(context.Background())
			e.clock.Add(time.Minute)
		}
	}
	if e.count(j.Key) != 1 {
		t.Fatalf("the missed run never ran across restarts (%d runs in %v)", e.count(j.Key), e.clock.Now().Sub(boot))
	}
	if took := e.clock.Now().Sub(boot); took > spread+time.Minute {
		t.Fatalf("the missed run ran %v after the first start, beyond the spread %v", took, spread)
	}
}
