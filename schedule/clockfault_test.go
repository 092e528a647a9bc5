package schedule_test

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestClockAt1970ThenNTP: a machine that boots with its
// clock at 1970 (no RTC battery) and gets the real time from NTP twenty
// minutes later. While the clock is obviously wrong (before this hab-gc
// was built, or more than a day before the state's own records) nothing
// runs and the recorded last runs are kept; once it is right, the due
// time that ran before the restart is not run again, and the next one
// runs once.
func TestClockAt1970ThenNTP(t *testing.T) {
	for _, tc := range []struct {
		name      string
		notBefore time.Time
	}{
		{"before the build time", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"before the state's records", time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, s, j := minute17Job(t)
			e.runFirstDue(s, j) // 00:17 ran at 00:20
			for h := 0; h < 5; h++ {
				e.clock.Add(time.Hour)
				s.RunDue(context.Background())
			}
			if n := e.count(j.Key); n != 6 { // 00:17 ... 05:17
				t.Fatalf("runs = %d, want 6", n)
			}
			real := e.clock.Now()                                    // 05:20
			e.clock.Set(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)) // the reboot
			s = e.scheduler()
			s.NotBefore = tc.notBefore
			e.reload(s)
			for m := 0; m < 20; m++ {
				e.clock.Add(time.Minute)
				s.RunDue(context.Background())
			}
			if n := e.count(j.Key); n != 6 {
				t.Fatalf("runs = %d at a 1970 clock, want 6 (nothing runs): ran %v", n, e.runs[j.Key][6:])
			}
			e.clock.Set(real.Add(20 * time.Minute)) // NTP: 05:40, 05:17 ran
			s.RunDue(context.Background())
			if n := e.count(j.Key); n != 6 {
				t.Fatalf("runs = %d after NTP set the clock right, want 6: the 05:17 due time ran twice", n)
			}
			st, err := schedule.LoadState(e.state)
			if err != nil || st.Jobs[j.Key].LastDue == nil || !st.Jobs[j.Key].LastDue.Equal(real.Add(-3*time.Minute)) {
				t.Fatalf("the recorded last run was rewritten: %v %+v", err, st.Jobs[j.Key])
			}
			e.clock.Add(40 * time.Minute) // 06:20
			s.RunDue(context.Background())
			if n := e.count(j.Key); n != 7 {
				t.Fatalf("runs = %d at 06:20, want 7", n)
			}
		})
	}
}

// TestFastClockSetBack: a daemon starting with its clock
// three days fast (it runs the jobs then), whose clock is then set right:
// the due times after the correction are not all "missed" before its
// recorded start (a catch-up delay measured from the wrong start would
// hold them for three days): they run, each once.
func TestFastClockSetBack(t *testing.T) {
	e, s, j := minute17Job(t)
	e.runFirstDue(s, j) // 00:17
	real := e.clock.Now()
	e.clock.Add(72 * time.Hour) // the restart, three days fast
	s = e.scheduler()
	s.CatchUpSpread = 10 * time.Minute
	e.reload(s)
	for m := 0; m < 60; m += 5 {
		e.clock.Add(5 * time.Minute)
		s.RunDue(context.Background())
	}
	fast := e.count(j.Key)                  // the catch-up run, and the hour's run
	e.clock.Set(real.Add(10 * time.Minute)) // set right: 00:30
	for m := 0; m < 24*60; m += 5 {
		e.clock.Add(5 * time.Minute)
		s.RunDue(context.Background())
	}
	// 01:17 ... 00:17 the next day; 01:17 may be taken as the first due
	// time after the re-anchoring (recoverClock), so 23 or 24.
	if n := e.count(j.Key) - fast; n < 23 || n > 24 {
		t.Fatalf("%d runs in the 24 h after the clock was set right, want 23 or 24", n)
	}
}
