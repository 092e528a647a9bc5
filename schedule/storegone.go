package schedule

import (
	"fmt"
	"log/slog"
	"os"
	"time"
)

// absence is a job whose store could not be opened: why, and when it is
// tried again.
type absence struct {
	why   string
	next  time.Time
	delay time.Duration
}

// maxStoreBackoff bounds the wait between tries of a job whose store
// cannot be opened (it is tried at once when the store exists again).
const maxStoreBackoff = 15 * time.Minute

// storeGone handles a due job whose store cannot be opened (unmounted,
// moved, not there yet): it stays due and is tried again after a minute,
// then after twice as long each time up to maxStoreBackoff, or at the
// first tick at which the store exists again. It is logged at ERROR and
// recorded in the state (LastError) once per reason, not at every try.
func (s *Scheduler) storeGone(j Job, out RunOutcome, log *slog.Logger, err error) RunOutcome {
	why := err.Error()
	out.Skipped, out.cause = why, err
	if s.NotRun != nil {
		s.NotRun(j, why)
	}
	now := s.now()
	s.umu.Lock()
	a := s.absent[j.Key]
	first := a == nil || a.why != why
	if first {
		a = &absence{why: why, delay: time.Minute}
		if s.absent == nil {
			s.absent = map[string]*absence{}
		}
		s.absent[j.Key] = a
	} else {
		a.delay = min(2*a.delay, maxStoreBackoff)
	}
	a.next = now.Add(a.delay)
	s.umu.Unlock()
	if !first {
		log.Debug("job not run: its store still cannot be opened", "error", why, "retry_in", a.delay.String())
		return out
	}
	log.Error("job not run: its store cannot be opened; it stays due, and is tried again at growing intervals (up to 15m) and as soon as the store exists (not logged again while the reason is the same)", "error", why)
	s.update(func(st *State) bool {
		if js := st.Jobs[j.Key]; js != nil {
			js.LastError = fmt.Sprintf("%s: %s", now.UTC().Format(time.RFC3339), why)
			return true
		}
		return false
	})
	return out
}

// backingOff reports whether a due job whose store could not be opened
// waits for its next try (storeGone): the store does not exist yet, and
// its retry time has not come.
func (s *Scheduler) backingOff(j Job, now time.Time) bool {
	s.umu.Lock()
	a := s.absent[j.Key]
	wait := a != nil && now.Before(a.next)
	s.umu.Unlock()
	if !wait {
		return false
	}
	_, err := os.Stat(j.Store)
	return err != nil
}
