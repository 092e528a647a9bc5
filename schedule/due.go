package schedule

import (
	"time"
)

// anchor is the time after which a job's due times count: its creation or
// its last run's due time, whichever is later.
func anchor(js *JobState) time.Time {
	a := js.Since
	if js.LastDue != nil && js.LastDue.After(a) {
		a = *js.LastDue
	}
	return a
}

// due is the latest due time after the anchor: one, however many were
// missed. An anchor in the future (the clock was set back) gives none.
func due(c *Cron, js *JobState, now time.Time) (time.Time, bool) {
	return c.LastDue(anchor(js), now)
}

// NextWake returns when the earliest job falls due, or a missed run ends
// its catch-up delay, after now (zero when there are no jobs).
func (s *Scheduler) NextWake(now time.Time) time.Time {
	next := s.pendingCatchUp()
	if !next.After(now) {
		next = time.Time{}
	}
	jobs, crons := s.snapshot()
	for _, j := range jobs {
		if n := crons[j.Key].Next(now); !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	return next
}
