package schedule

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Status is what became of a job the scheduler considered.
type Status uint8

const (
	NotRun     Status = iota // it stays due and is retried; RunOutcome.Err says why
	Ran                      // RunOutcome.Result says what it did; Err is its error
	AlreadyRan               // another run recorded this due time meanwhile
	EnoughFree               // a pressure job found enough free space under the lock
)

// RunOutcome reports one job the scheduler considered.
type RunOutcome struct {
	Job    Job
	Due    time.Time
	Status Status
	Result RunResult
	Err    error
}

// Failed reports whether the job could not run, or ran and failed.
func (o RunOutcome) Failed() bool { return o.Status == NotRun || o.Err != nil }

// RunDue runs every job that is due now, each under its store's lock,
// under which the state is read again: no due time runs twice.
func (s *Scheduler) RunDue(ctx context.Context) []RunOutcome {
	return s.runDue(ctx, true)
}

// runDue runs the due jobs, each store's in a worker of its own. Without
// wait (Loop), a store whose worker is busy keeps its jobs for a later
// tick.
func (s *Scheduler) runDue(ctx context.Context, wait bool) []RunOutcome {
	jobs, crons := s.snapshot()
	st, err := s.readState()
	if err != nil {
		s.log().Error("reading state", "error", err)
		return s.pressureOnly(ctx, wait)
	}
	// Every job, not only those due now: one left out of a rebuilt file
	// would lose the due time it missed at the next start.
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

// dueNow returns the due time job j runs for now, or false: unknown, it
// waits for the clock, its catch-up delay or its store, or it ran already
// in this process although its record failed.
func (s *Scheduler) dueNow(j Job, st *stateFile, c *cronSpec) (time.Time, bool) {
	js := st.Jobs[j.Key]
	if js != nil {
		cp := *js // holdCatchUp sets CatchUp
		js = &cp
	}
	if js = s.latest(j.Key, js); js == nil {
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

// storeWorkers bounds how many stores run jobs at once.
const storeWorkers = 8

// pendingRun is a due run of a scheduled job, or a store's pressure job,
// which runs if the free space is low when the worker comes to it
// (checked: the tick found it so).
type pendingRun struct {
	j                 Job
	due               time.Time
	pressure, checked bool
}

// dispatch runs each store's due jobs, in order, in a worker of the
// store's own; a busy worker wakes Loop when it is done.
func (s *Scheduler) dispatch(ctx context.Context, byStore map[string][]pendingRun, stores []string, wait bool) []RunOutcome {
	var mu sync.Mutex
	var outs []RunOutcome
	add := func(o RunOutcome) {
		mu.Lock()
		outs = append(outs, o)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	started, sem := s.startWorkers(byStore, stores)
	for _, st := range started {
		wg.Add(1)
		s.workers.Add(1)
		go func(store string, runs []pendingRun) {
			defer s.workers.Done()
			defer wg.Done()
			defer s.workerDone(store, runs)
			s.work(ctx, sem, runs, add)
		}(st, byStore[st])
	}
	if !wait {
		return nil
	}
	wg.Wait()
	sortOutcomes(outs)
	return outs
}

// startWorkers marks busy, and returns, the stores whose workers start
// now, with the semaphore bounding how many run at once.
func (s *Scheduler) startWorkers(byStore map[string][]pendingRun, stores []string) (started []string, sem chan struct{}) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.sem == nil {
		s.sem = make(chan struct{}, storeWorkers)
	}
	if s.busy == nil {
		s.busy = map[string]bool{}
	}
	if s.deferred == nil {
		s.deferred = map[string]bool{}
	}
	for _, st := range stores {
		if !s.busy[st] {
			s.busy[st] = true
			started = append(started, st)
		} else if slices.ContainsFunc(byStore[st], func(r pendingRun) bool { return !r.pressure }) {
			s.deferred[st] = true
		}
	}
	return started, s.sem
}

// work is a store's worker: once sem has room, it runs the store's runs
// in order, each in its job's slot (no triggered run beside it).
func (s *Scheduler) work(ctx context.Context, sem chan struct{}, runs []pendingRun, add func(RunOutcome)) {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-sem }()
	for _, r := range runs {
		slot := s.slot(r.j.Key)
		select {
		case slot <- struct{}{}:
		case <-ctx.Done():
			return
		}
		o, ran := s.runPending(ctx, r)
		<-slot
		if ran {
			add(o)
		}
	}
}

// runPending runs a scheduled job's due run, or the store's pressure job
// when the free space is low; false when that did not run.
func (s *Scheduler) runPending(ctx context.Context, r pendingRun) (RunOutcome, bool) {
	if !r.pressure {
		return s.runOne(ctx, r.j, r.due), true
	}
	if !r.checked {
		under, err := s.underPressure(r.j)
		if err != nil {
			s.log().Error("reading free space", "job", r.j.Key, "store", r.j.Store, "error", err)
			return RunOutcome{}, false
		}
		if !under {
			return RunOutcome{}, false
		}
	}
	return s.runPressure(ctx, r.j), true
}

// workerDone marks a store's worker done, waking Loop when the store may
// have more due.
func (s *Scheduler) workerDone(store string, runs []pendingRun) {
	s.wmu.Lock()
	delete(s.busy, store)
	again := s.deferred[store] || slices.ContainsFunc(runs, func(r pendingRun) bool { return !r.pressure })
	delete(s.deferred, store)
	s.wmu.Unlock()
	if again {
		select {
		case s.kicked() <- struct{}{}:
		default:
		}
	}
}

// sortOutcomes puts the pressure prunes after the scheduled runs, as each
// store ran them, and each kind by job key.
func sortOutcomes(outs []RunOutcome) {
	slices.SortStableFunc(outs, func(a, b RunOutcome) int {
		if pa, pb := a.Job.Type == Pressure, b.Job.Type == Pressure; pa != pb {
			if pa {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Job.Key, b.Job.Key)
	})
}

func (s *Scheduler) storeBusy(store string) bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.busy[store]
}

func (s *Scheduler) kicked() chan struct{} {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.kick == nil {
		s.kick = make(chan struct{}, 1)
	}
	return s.kick
}

func (s Status) String() string {
	return [...]string{"not run", "ran", "already ran for this due time", "enough free space now"}[s]
}
