package schedule_test

import (
	"context"
	"github.com/hab-gc/hab-gc/schedule"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// TestPropertyClockFaultsRestartsDamage: random restarts,
// clock steps back (under a day) and forward, a state file deleted or
// damaged, over a simulated month in four zones: no due time runs
// twice, and a job never goes more than a few hours of right clock
// without a run. Bounded (a fixed seed per zone, ten-minute ticks) so it
// takes a few seconds.
func TestPropertyClockFaultsRestartsDamage(t *testing.T) {
	for i, zone := range []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Skip("no tzdata:", err)
		}
		t.Run(zone, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 32))
			e, s, _ := minute17Job(t)
			s.Location = loc
			e.reload(s)
			seen := map[time.Time]bool{}
			real := e.clock.Now()
			lastRun := real
			for step := 0; step < 6*24*30; step++ { // 30 days of 10-minute ticks
				real = real.Add(10 * time.Minute)
				e.clock.Set(real)
				switch x := r.IntN(400); {
				case x == 0:
					s = e.scheduler()
					s.Location = loc
					e.reload(s)
				case x == 1:
					os.Remove(e.state)
				case x == 2:
					os.WriteFile(e.state, []byte("{\"version\":1,\"jobs\":{"), 0o644)
				case x == 3: // stepped back, then right at the next tick
					e.clock.Set(real.Add(-time.Duration(r.IntN(20)+1) * time.Hour))
				}
				for _, o := range s.RunDue(context.Background()) {
					if o.Status != schedule.Ran {
						continue
					}
					if seen[o.Due] {
						t.Fatalf("step %d: the due time %v ran twice", step, o.Due)
					}
					seen[o.Due] = true
					lastRun = real
				}
				if real.Sub(lastRun) > 6*time.Hour {
					t.Fatalf("step %d (%v): no run for %v", step, real, real.Sub(lastRun))
				}
			}
			if len(seen) < 30*24*9/10 {
				t.Fatalf("%d runs in 30 days of an hourly job", len(seen))
			}
		})
	}
}
