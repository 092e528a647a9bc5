package schedule_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestCatchUpSpread: after downtime, each machine's missed run waits a
// stable delay of its own within the bound, instead of every machine
// running at the same second when it boots.
func TestCatchUpSpread(t *testing.T) {
	const machines = 20
	bound := 10 * time.Minute
	ranAt := map[time.Duration]int{}
	for m := 0; m < machines; m++ {
		e := newEnv(t)
		e.write("a", prune(e.store(), "@daily-random"))
		s := e.scheduler()
		s.Machine = fmt.Sprintf("machine-%d", m)
		s.CatchUpSpread = bound
		e.reload(s)
		j := onlyJob(t, s)
		e.clock.Add(72 * time.Hour) // down for three days, then a restart
		s2 := e.scheduler()
		s2.Machine, s2.CatchUpSpread = s.Machine, bound
		e.reload(s2)
		boot := e.clock.Now()
		for e.clock.Now().Sub(boot) <= bound {
			s2.RunDue(context.Background())
			if e.count(j.Key) > 0 {
				break
			}
			if w := s2.NextWake(e.clock.Now()); w.IsZero() || w.After(boot.Add(bound)) {
				t.Fatalf("machine %d: the pending catch-up is not a wake time (%v)", m, w)
			}
			e.clock.Add(10 * time.Second)
		}
		if e.count(j.Key) != 1 {
			t.Fatalf("machine %d: %d catch-up runs within the bound, want 1", m, e.count(j.Key))
		}
		ranAt[e.clock.Now().Sub(boot).Truncate(time.Minute)]++
		s2.RunDue(context.Background())
		if e.count(j.Key) != 1 {
			t.Fatalf("machine %d: ran again", m)
		}
	}
	if ranAt[0] > machines/4 || len(ranAt) < 6 {
		t.Fatalf("catch-up runs by minute after boot: %v; want them spread over the %v", ranAt, bound)
	}
}
