package schedule_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestSchedulerValidate: a negative duration is "none"
// only as a named constant (retention.NoLockWait, retention.PaceAuto);
// StateLockTimeout and CatchUpSpread have none, so a negative one is
// refused, by Validate and by Reload, which then reads nothing.
func TestSchedulerValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    func() *schedule.Scheduler
		ok   bool
	}{
		{"zero", func() *schedule.Scheduler { return &schedule.Scheduler{} }, true},
		{"named nones", func() *schedule.Scheduler {
			return &schedule.Scheduler{LockTimeout: retention.NoLockWait, Pace: retention.PaceAuto}
		}, true},
		{"lock timeout -5s", func() *schedule.Scheduler { return &schedule.Scheduler{LockTimeout: -5 * time.Second} }, false},
		{"catch-up spread -1m", func() *schedule.Scheduler { return &schedule.Scheduler{CatchUpSpread: -time.Minute} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s()
			err := s.Validate()
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, schedule.ErrInvalidScheduler)) {
				t.Fatalf("Validate: %v, want ok %v", err, tc.ok)
			}
			if tc.ok {
				return
			}
			e := newEnv(t)
			s.Dir, s.StatePath = e.dir, e.state
			if _, err := s.Reload(); !errors.Is(err, schedule.ErrInvalidScheduler) {
				t.Fatalf("Reload: %v, want ErrInvalidScheduler", err)
			}
		})
	}
	for _, p := range []schedule.Params{{}, {KeepLatest: -2}, {KeepLatest: 1, MinAge: -time.Second}} {
		if err := p.Validate(); err == nil {
			t.Errorf("Params %+v accepted", p)
		}
	}
	if err := (schedule.Params{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge}).Validate(); err != nil {
		t.Errorf("the named nones: %v", err)
	}
}
