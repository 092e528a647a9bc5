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

// due returns the due time a job should run for now: the latest due time
// after both its creation and its last run. One, however many were missed.
// When that anchor is in the future (the clock was set back after a run
// at a wrong time), nothing is due; RunDue then re-anchors the job at now.
func due(c *Cron, js *JobState, now time.Time) (time.Time, bool) {
	return c.LastDue(anchor(js), now)
}

// NextWake returns when the earliest job falls due after now (zero when
// there are no jobs).
func (s *Scheduler) NextWake(now time.Time) time.Time {
	next := s.PendingCatchUp()
	if next.IsZero() || !next.After(now) {
		next = time.Time{}
	}
	jobs, crons := s.snapshot()
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if s.wake == nil {
		s.wake = map[string]time.Time{}
	}
	for _, j := range jobs {
		n, ok := s.wake[j.Key]
		if !ok || !n.After(now) || n.Sub(now) > 400*24*time.Hour { // a cached next beyond a year: the clock went back
			n = crons[j.Key].Next(now)
			s.wake[j.Key] = n
		}
		if !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	return next
}

// nextDue is the first due time of a job's schedule after anchor,
// remembered for the anchor (a tick needs it for every job).
func (s *Scheduler) nextDue(key string, c *Cron, anchor time.Time) time.Time {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if n, ok := s.after[key]; ok && n.anchor.Equal(anchor) && n.cron == c {
		return n.next
	}
	if s.after == nil {
		s.after = map[string]cachedNext{}
	}
	n := cachedNext{anchor: anchor, cron: c, next: c.Next(anchor)}
	if n.next.IsZero() {
		n.next = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC) // never
	}
	s.after[key] = n
	return n.next
}

// cachedNext is a job's first due time after an anchor, for one Cron.
type cachedNext struct {
	anchor time.Time
	cron   *Cron
	next   time.Time
}
