package schedule_test

import (
	"context"
	"github.com/hab-gc/hab-gc/schedule"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUnwritableStateRunsOncePerDueTime: when the run's record cannot be
// written, the same due time is not run again (every tick) by this
// process; the failure is logged once and shown in the status.
//
// The ticks start a minute after the job's first due time and stay within
// its hour: the job's minute is drawn from a hash of its store's (temporary,
// so random) path, and ticks from a fixed wall time crossed the next due
// time for about one path in fifteen, which was a second due time, not the
// same one run twice.
func TestUnwritableStateRunsOncePerDueTime(t *testing.T) {
	e, s, logs := hourlyJob(t)
	j := onlyJob(t, s)
	sts, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	first := sts[0].Next
	roBind(t, filepath.Dir(e.state))
	e.clock.Set(first.Add(time.Minute))
	var dues []time.Time
	for i := 0; i < 5; i++ {
		for _, o := range s.RunDue(context.Background()) {
			if o.Status == schedule.Ran {
				dues = append(dues, o.Due)
			}
		}
		e.clock.Add(time.Minute)
	}
	if n := e.count(j.Key); n != 1 || len(dues) != 1 || !dues[0].Equal(first) {
		t.Fatalf("the due time %v ran %d times (due times run: %v)", first, n, dues)
	}
	if n := strings.Count(logs.String(), "recording the run"); n != 1 {
		t.Fatalf("the failure was logged %d times, want once:\n%s", n, logs.String())
	}
	sts, err = s.Status()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sts[0].LastError, "not recorded") {
		t.Fatalf("status does not show the failure: %+v", sts[0])
	}
	// The next due time runs (once).
	e.clock.Add(time.Hour)
	s.RunDue(context.Background())
	s.RunDue(context.Background())
	if n := e.count(j.Key); n != 2 {
		t.Fatalf("runs after the next due time: %d, want 2", n)
	}
}
