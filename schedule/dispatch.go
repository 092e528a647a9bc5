package schedule

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// storeWorkers bounds how many stores run jobs at once.
const storeWorkers = 8

// pendingRun is a due run of a scheduled job, or a store's pressure job
// (pressure), which runs only if the store's free space is below its
// min_free when the worker comes to it (checked: the tick found it so).
type pendingRun struct {
	j                 Job
	due               time.Time
	pressure, checked bool
}

// dispatch runs each store's due jobs, in order, in a worker of the
// store's own; a store whose worker is busy (a run of an earlier tick) is
// left for later: the worker wakes Loop when it is done. One store's runs
// (scheduled and pressure) never overlap; other stores' are not delayed.
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

// startWorkers marks busy the stores whose workers start now (those not
// busy already), and returns them with the semaphore bounding how many
// run at once (storeWorkers). A busy store with scheduled runs is marked
// deferred: its worker wakes Loop when it is done.
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

// work is a store's worker: once a place is free (sem), it runs the
// store's runs in order, each in the job's slot (no triggered run of the
// job beside it), and adds their outcomes.
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
		case slot <- struct{}{}: // no triggered run of this job under way
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

// runPending runs one run of a worker: a scheduled job's due run, or the
// store's pressure job when its free space is below min_free (read again
// unless the tick just did). false: a pressure job with nothing to do, or
// whose free space could not be read (logged).
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

// workerDone marks a store's worker done. The loop looks again when this
// store may have more due: scheduled runs ran or were left for later. Not
// after a pressure prune alone: one that could not free enough is tried
// again at the next tick, not at once.
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

// storeBusy reports whether a worker runs jobs of the store now.
func (s *Scheduler) storeBusy(store string) bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.busy[store]
}

// kicked is the channel a finished worker wakes Loop with.
func (s *Scheduler) kicked() chan struct{} {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.kick == nil {
		s.kick = make(chan struct{}, 1)
	}
	return s.kick
}
