package schedule_test

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestLongGapFrequentJobCatchesUpOnce: an every-minute
// job after a five-year gap (a machine stored, a restored backup) runs
// once, for its latest due time, and the next tick in the same minute runs
// nothing: the search for the latest due time is not capped at a stale one.
func TestLongGapFrequentJobCatchesUpOnce(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "* * * * *"))
	s := e.loaded()
	j := onlyJob(t, s)
	e.clock.Add(90 * time.Second)
	s.RunDue(context.Background())
	e.clock.Add(5 * 365 * 24 * time.Hour)
	outs := s.RunDue(context.Background())
	if len(outs) != 1 || !outs[0].Due.Equal(e.clock.Now().Truncate(time.Minute)) {
		t.Fatalf("after the gap, ran %+v, want one run due %v", outs, e.clock.Now().Truncate(time.Minute))
	}
	e.clock.Add(time.Second)
	s.RunDue(context.Background())
	if n := e.count(j.Key); n != 2 {
		t.Fatalf("runs = %d, want 2 (one before the gap, one catch-up)", n)
	}
}

// TestLastDueLongRange: Cron.LastDue over years of every-minute due
// times returns the latest.
func TestLastDueLongRange(t *testing.T) {
	c, err := schedule.NewCron("* * * * *", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2020, 1, 1, 0, 0, 30, 0, time.UTC)
	to := from.Add(5*365*24*time.Hour + 10*time.Second)
	d, ok := c.LastDue(from, to)
	if want := to.Truncate(time.Minute); !ok || !d.Equal(want) {
		t.Fatalf("LastDue = %v %v, want %v", d, ok, want)
	}
}

// BenchmarkLastDueLongGap is the cost of finding an every-minute job's
// latest due time after a five-year gap (a 1.65 s tick).
func BenchmarkLastDueLongGap(b *testing.B) {
	c, err := schedule.NewCron("* * * * *", time.UTC)
	if err != nil {
		b.Fatal(err)
	}
	from := time.Date(2020, 1, 1, 0, 0, 30, 0, time.UTC)
	to := from.Add(5 * 365 * 24 * time.Hour)
	for b.Loop() {
		c.LastDue(from, to)
	}
}
