package schedule

import (
	"context"
	"slices"
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

// runDue finds the due jobs and runs them, each store's in a worker of
// its own (at most storeWorkers stores at once): a long prune of one
// store never delays another store's jobs. With wait, it returns once
// every run is done, with their outcomes; without (Loop), a store whose
// worker is still busy keeps its due jobs for a later tick.
//
// Its steps: the jobs that may be due by what this scheduler knows
// (maybeDue); the state, read only then; the jobs it lost, restored; the
// clock, checked (holdForClock); each job's due time (dueNow); then each
// store's runs and pressure job
// (addPressure), dispatched to its worker.
func (s *Scheduler) runDue(ctx context.Context, wait bool) []RunOutcome {
	jobs, crons := s.snapshot()
	if s.Only != "" {
		// Not a copy of the fleet's jobs at every tick: 10,000 Jobs
		// copied and grown were half a tick's CPU (issue 32 item 8).
		jobs = slices.DeleteFunc(slices.Clone(jobs), func(j Job) bool { return j.Key != s.Only })
	}
	now := s.now()
	maybe := s.maybeDue(jobs, crons, now)
	// An idle tick reads nothing, unless the state file is not as this
	// scheduler left it (deleted, replaced, damaged): it is then read, and
	// rebuilt from memory, at once.
	if len(maybe) == 0 && !s.stateChanged() {
		return s.pressureOnly(ctx, wait)
	}
	st, err := s.readState() // read only when the file changed; a damaged one is set aside
	if err != nil {
		s.log().Error("reading state", "error", err)
		return s.pressureOnly(ctx, wait)
	}
	// Every job this scheduler knows is restored, not only those that
	// may be due now: a job left out of a rebuilt file would start anew
	// at the next start, and lose the due time it missed meanwhile.
	s.restore(st, jobs)
	if s.holdForClock(st, now) {
		return s.pressureOnly(ctx, wait)
	}
	byStore := map[string][]pendingRun{}
	var stores []string
	for _, j := range maybe {
		if ctx.Err() != nil {
			break
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
	// Each store's pressure job runs in its worker too, after the store's
	// scheduled runs (a prune may have freed enough).
	stores = s.addPressure(byStore, stores)
	return s.dispatch(ctx, byStore, stores, wait)
}

// maybeDue returns the jobs that may be due now by what this scheduler
// knows (its Reload, its runs, what it read): the state file is read only
// when one may be (once a tick), and each run reads it again under the
// store's lock before it starts. An idle tick reads nothing.
func (s *Scheduler) maybeDue(jobs []Job, crons map[string]*Cron, now time.Time) []Job {
	var maybe []Job
	for _, j := range jobs {
		m, ok := s.memJob(j.Key)
		if a := anchor(&m); !ok || a.After(now.Add(setBack)) || !a.After(now) && !now.Before(s.nextDue(j.Key, crons[j.Key], a)) {
			maybe = append(maybe, j)
		}
	}
	return maybe
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
