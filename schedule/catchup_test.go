package schedule_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestCatchUpSpread: after downtime, each machine's missed run waits a
// stable delay of its own within the bound, instead of every machine
// running at the same second when it boots.
func TestCatchUpSpread(t *testing.T) {
	// The job's key holds a temporary path, so the delays differ from
	// run to run: with 100 machines a minute holding a quarter of them
	// happens about once in 10,000 runs by chance.
	const machines = 100
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
	most := 0
	for _, n := range ranAt {
		most = max(most, n)
	}
	if most > machines/4 || len(ranAt) < 8 {
		t.Fatalf("catch-up runs by minute after boot: %v; want them spread over the %v", ranAt, bound)
	}
}

// TestMachineKeepsKeys: the machine's identity moves a randomized time but
// not the job's key, so a job's state survives the upgrade that added it.
func TestMachineKeepsKeys(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "@daily-random"))
	jobs := func(machine string) []schedule.Job {
		s := &schedule.Scheduler{Dir: e.dir, StatePath: e.state, Machine: machine, ReadOnly: true}
		if probs, err := s.Reload(); err != nil || len(probs) > 0 {
			t.Fatal(err, probs)
		}
		return s.Jobs()
	}
	before, after := jobs("machine-0"), jobs("machine-1")
	if before[0].Key != after[0].Key {
		t.Fatalf("key changed: %s -> %s", before[0].Key, after[0].Key)
	}
	if before[0].Cron == after[0].Cron && jobs("machine-2")[0].Cron == before[0].Cron {
		t.Fatalf("the machine does not move the time: %s", before[0].Cron)
	}
}
