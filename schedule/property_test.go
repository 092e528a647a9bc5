package schedule_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestPropertyNeverMisses: three simulated years (one per seed) of a
// daemon with a settable clock, restarts, reloads, editor saves, the state
// file deleted, and the clock stepped forward and (a little) back, at
// random points. After every tick each job is up to date (it ran for its
// latest due time since it exists); no job is ever dropped; each due time
// ran at most once (a prune's or a check's: one state file), and only real
// due times ran.
func TestPropertyNeverMisses(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates three years")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel() // each simulation has its own directories and clock
			simulate(t, seed, 365*24*time.Hour, nil)
		})
	}
}

// TestPropertyNeverMissesInZones: the same
// simulated year in zones whose clocks change by an hour (Europe/Berlin,
// America/New_York), by half an hour (Australia/Lord_Howe) or never, at a
// half-hour offset (Asia/Kolkata), with @hourly-random too, and the state
// file replaced by an older copy of itself now and then (a reload follows):
// every due time runs, once.
func TestPropertyNeverMissesInZones(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a year per zone")
	}
	for i, zone := range []string{"Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Skipf("no zone data: %v", err)
		}
		t.Run(zone, func(t *testing.T) {
			t.Parallel()
			simulate(t, uint64(10+i), 365*24*time.Hour, loc)
		})
	}
}

// simulate runs the property over span with the scheduler's Location loc
// (nil: UTC); in a zone, @hourly-random is one of the jobs and the state
// file is replaced by an older copy at times.
func simulate(t *testing.T, seed uint64, span time.Duration, loc *time.Location) {
	rng := rand.New(rand.NewPCG(seed, 25))
	e := newEnv(t)
	root := e.store()
	files := map[string]string{
		"daily":  prune(root, "@daily-random") + "[check]\nschedule = \"@daily-random\"\n",
		"weekly": prune(root, "@weekly-random(mon-fri 01:00-05:00)"),
		"cron":   prune(root, "17 3,15 * * *"),
	}
	if loc != nil {
		files["hourly"] = prune(root, "@hourly-random")
		files["cron"] = prune(root, "17 3,15 * * *") + "[check]\nschedule = \"30 2 * * *\"\n"
	}
	for n, c := range files {
		e.write(n, c)
	}
	var mu sync.Mutex
	ran := map[string]map[time.Time]int{} // job key -> due time -> runs
	var due time.Time
	newSched := func() *schedule.Scheduler {
		s := e.scheduler()
		s.Location = loc
		s.Run = func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if ran[j.Key] == nil {
				ran[j.Key] = map[time.Time]int{}
			}
			ran[j.Key][due]++ // due: set by the check below from the outcome
			return schedule.RunResult{OK: true}, nil
		}
		e.reload(s)
		return s
	}
	s := newSched()
	created := map[string]time.Time{}
	for _, j := range s.Jobs() {
		created[j.Key] = e.clock.Now()
	}
	crons := map[string]*schedule.Cron{}
	for _, j := range s.Jobs() {
		c, err := schedule.NewCron(j.Cron, j.Spec.Zone(loc))
		if err != nil {
			t.Fatal(err)
		}
		crons[j.Key] = c
	}
	last := map[string]time.Time{}
	end := e.clock.Now().Add(span)
	events := map[string]int{}
	var trace []string
	var older []byte // a copy of the state file from an earlier tick
	for e.clock.Now().Before(end) {
		before := fmt.Sprint(events)
		switch r := rng.IntN(100); {
		case r < 4:
			events["restart"]++
			s = newSched()
		case r < 8:
			events["reload"]++
			e.reload(s)
		case r < 10:
			events["editor save"]++
			f := filepath.Join(e.dir, "daily.toml")
			os.Rename(f, f+"~")
			s.Reload()
			os.Rename(f+"~", f)
			e.reload(s)
		case r < 12:
			events["state lost"]++
			os.Remove(e.state)
		case r < 14:
			events["clock forward"]++
			e.clock.Add(time.Duration(1+rng.IntN(72)) * time.Hour)
		case r < 15:
			events["clock back"]++
			e.clock.Add(-time.Duration(1+rng.IntN(6*60)) * time.Minute)
		case r < 20 && loc != nil:
			if b, err := os.ReadFile(e.state); err == nil && older == nil {
				older = b
			} else if older != nil {
				events["older state"]++
				if err := os.WriteFile(e.state, older, 0o644); err != nil {
					t.Fatal(err)
				}
				older = nil
				e.reload(s)
			}
		}
		e.clock.Add(time.Duration(10+rng.IntN(8*60)) * time.Minute)
		now := e.clock.Now()
		if after := fmt.Sprint(events); after != before {
			trace = append(trace, now.Format(time.DateTime)+" after "+after)
		} else {
			trace = append(trace, now.Format(time.DateTime))
		}
		if len(trace) > 6 {
			trace = trace[1:]
		}
		// Run one tick, attributing each run to its due time.
		for _, o := range s.RunDue(context.Background()) {
			if o.Status != schedule.Ran {
				if o.Failed() {
					t.Fatalf("%s: %s not run: %v", now, o.Job.Key, o.Err)
				}
				continue
			}
			mu.Lock()
			// The Run hook counted under the zero due; move it.
			ran[o.Job.Key][time.Time{}]--
			ran[o.Job.Key][o.Due]++
			mu.Unlock()
			if c := crons[o.Job.Key]; !c.Next(o.Due.Add(-time.Nanosecond)).Equal(o.Due) {
				t.Fatalf("%s ran for %s, not a due time of %s", o.Job.Key, o.Due, c.Expr)
			}
			if o.Due.After(last[o.Job.Key]) {
				last[o.Job.Key] = o.Due
			}
		}
		for key, c := range crons {
			p, ok := c.Prev(now)
			if !ok || !p.After(created[key]) || last[key].IsZero() && p.Before(now.Add(-8*time.Hour)) {
				continue
			}
			if last[key].Before(p) {
				t.Fatalf("%s after a tick: %s (%s) last ran for %s, its due time %s did not run (ticks %q)", now, key, c.Expr, last[key], p, trace)
			}
		}
	}
	runs := 0
	for key, m := range ran {
		for d, n := range m {
			if d.IsZero() {
				continue
			}
			runs += n
			if n > 1 {
				t.Errorf("%s: due time %s ran %d times", key, d, n)
			}
		}
	}
	t.Logf("%d runs, events %v", runs, events)
	if runs < 365 {
		t.Fatalf("only %d runs in the simulated span", runs)
	}
}
