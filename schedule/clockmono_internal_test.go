package schedule

import (
	"strings"
	"testing"
	"time"
)

// TestNowHasNoMonotonicReading: the scheduler's times are the wall
// clock's, whatever its Clock returns (time.Now's readings carry a
// monotonic one): a start read while the clock was fast then compares as
// fast once the clock is set right, and the due times after the
// correction are not taken as missed. A real clock step cannot be made
// in a test without setting the machine's clock; this checks the
// readings it would compare.
func TestNowHasNoMonotonicReading(t *testing.T) {
	t.Parallel()
	fast := 2 * time.Hour
	s := &Scheduler{StatePath: t.TempDir() + "/state.json", Clock: func() time.Time { return time.Now().Add(fast) }}
	if c := s.Clock(); !strings.Contains(c.String(), " m=") {
		t.Fatalf("the test clock carries no monotonic reading: %s", c)
	}
	if n := s.now(); strings.Contains(n.String(), " m=") {
		t.Fatalf("now() carries a monotonic reading: %s", n)
	}
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.started.String(), " m=") {
		t.Fatalf("the start carries a monotonic reading: %s", s.started)
	}
	fast = 0 // set right: the wall clock goes back 2h
	if s.holdForClock(nil, s.now()); !s.started.Before(time.Now().Add(time.Minute)) {
		t.Fatalf("the start %s did not move back with the wall clock", s.started)
	}
}
