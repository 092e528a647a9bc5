package schedule

import (
	"context"
	"time"
)

// Loop runs due jobs until ctx ends, sleeping until the next due time (at
// most maxSleep) and reloading the definitions whenever reload fires. A
// job running when ctx ends stops safely (see retention.Apply).
func (s *Scheduler) Loop(ctx context.Context, reload <-chan struct{}, maxSleep time.Duration) error {
	defer s.workers.Wait() // a run under way stops safely first
	kick := s.kicked()
	for {
		s.runDue(ctx, false)
		now := s.now()
		wait := maxSleep
		if n := s.NextWake(now); !n.IsZero() && n.Sub(now) < wait {
			wait = max(n.Sub(now), time.Second)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-reload:
			t.Stop()
			if _, err := s.Reload(); err != nil {
				s.log().Error("reloading schedule definitions", "error", err)
			} else {
				s.log().Info("reloaded schedule definitions", "jobs", len(s.Jobs()))
			}
		case <-kick:
			t.Stop()
		case <-t.C:
		}
	}
}
