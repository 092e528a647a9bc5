package schedule

import (
	"context"
	"time"
)

// RunOutcome reports one job the scheduler considered in RunDue.
type RunOutcome struct {
	Job     Job
	Due     time.Time
	Ran     bool
	Result  RunResult
	Skipped string // why it did not run although due
	cause   error  // what Skipped says, for Trigger's error
	// Triggered is set for a run Trigger made.
	Triggered bool
}

// SkippedAlreadyRan is RunOutcome.Skipped of a job whose due time another
// run (another scheduler's) recorded meanwhile: nothing to do.
const SkippedAlreadyRan = "already ran for this due time"

// Failed reports whether the job did not do what it was due to do: it
// stayed due (lock timeout, unusable store), or it ran and failed. A due
// time another scheduler ran, and a pressure job with
// enough free space, are not failures.
func (o RunOutcome) Failed() bool {
	if o.Ran {
		return o.Result.Error != ""
	}
	return o.Skipped != "" && o.Skipped != SkippedAlreadyRan && o.Skipped != SkippedEnoughFree
}

// RunDue runs every job that is due now, one at a time, each under its
// store's lock: the state is read again under the lock, so a due time
// that another scheduler already ran is not run twice.
func (s *Scheduler) RunDue(ctx context.Context) []RunOutcome {
	return s.runDue(ctx, true)
}

// runDue finds the due jobs and runs them, each store's in a worker of its
// own. With wait, it returns once every run is done; without (Loop), a
// store whose worker is still busy keeps its due jobs for a later tick.
// The state is read only when its files changed since last read.
func (s *Scheduler) runDue(ctx context.Context, wait bool) []RunOutcome {
	jobs, crons := s.snapshot()
	st, err := s.readState() // a damaged file is set aside
	if err != nil {
		s.log().Error("reading state", "error", err)
		return s.pressureOnly(ctx, wait)
	}
	// Every job is restored, not only those due now: a job left out of a
	// rebuilt file would lose the due time it missed at the next start.
	s.restore(st, jobs)
	if s.holdForClock(st, s.now()) {
		return s.pressureOnly(ctx, wait)
	}
	byStore := map[string][]pendingRun{}
	var stores []string
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		if s.Only != "" && j.Key != s.Only {
			continue
		}
		d, ok := s.dueNow(j, st, crons[j.Key])
		if !ok {
			continue
		}
		if byStore[j.Store] == nil {
			stores = append(stores, j.Store)
		}
		byStore[j.Store] = append(byStore[j.Store], pendingRun{j: j, due: d})
	}
	// A store's pressure job runs after its scheduled runs, in its worker.
	stores = s.addPressure(byStore, stores)
	return s.dispatch(ctx, byStore, stores, wait)
}

// dueNow returns the due time job j runs for now, as the state st (read
// this tick) and this scheduler's memory say, or false when none: the
// job is unknown, waits for the clock (restamp, recoverClock, a clock
// set back a little), ran already in this process although its record
// failed, waits its catch-up delay (holdCatchUp) or its store's next try
// (backingOff).
func (s *Scheduler) dueNow(j Job, st *State, c *Cron) (time.Time, bool) {
	js := st.Jobs[j.Key]
	if js != nil {
		cp := *js // readState's JobStates are shared: holdCatchUp sets CatchUp
		js = &cp
	}
	if m, ok := s.memJob(j.Key); ok && m.LastDue != nil && (js == nil || js.LastDue == nil || js.LastDue.Before(*m.LastDue)) {
		js = &m // a run this scheduler made that the file does not show (not writable)
	} else if ok && js != nil && js.LastDue != nil && (m.LastDue == nil || m.LastDue.Before(*js.LastDue)) {
		s.remember(j.Key, *js) // another scheduler's run
	}
	if js == nil {
		s.log().Error("job not run: the state file does not hold it and this daemon has no record of it; it is added at the next reload", "job", j.Key)
		return time.Time{}, false
	}
	now := s.now()
	if js.LastDue == nil && !s.NotBefore.IsZero() && js.Since.Before(s.NotBefore) {
		s.restamp(j, now)
		return time.Time{}, false
	}
	if a := anchor(js); a.After(now.Add(setBack)) {
		s.recoverClock(j, a, now)
		return time.Time{}, false
	} else if a.After(now) {
		return time.Time{}, false // the clock was set back a little: those due times ran
	}
	d, ok := due(c, js, now)
	if !ok {
		return time.Time{}, false
	}
	if u, ok := s.lastUnrecorded(j.Key); ok && !u.due.Before(d) {
		return time.Time{}, false // ran already in this process; its record failed
	}
	if s.holdCatchUp(j, js, d, now) || s.backingOff(j, now) {
		return time.Time{}, false
	}
	return d, true
}
