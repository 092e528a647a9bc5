package schedule

import (
	"context"
	"log/slog"
	"slices"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// SkippedEnoughFree is RunOutcome.Skipped of a pressure job that found, under
// the store's lock, that free space is no longer below min_free (a prune
// that ran meanwhile freed it): nothing to do, not a failure.
const SkippedEnoughFree = "enough free space now"

// PressureJobs returns the pressure jobs of the last Reload, one per
// store.
func (s *Scheduler) PressureJobs() []Job {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pressure
}

// pressureOnly dispatches the stores' pressure jobs alone, each run under
// the store's exclusive lock once its free space is read again.
func (s *Scheduler) pressureOnly(ctx context.Context, wait bool) []RunOutcome {
	byStore := map[string][]pendingRun{}
	return s.dispatch(ctx, byStore, s.addPressure(byStore, nil), wait)
}

// addPressure adds to each store's runs its pressure job, unless the
// store's worker is busy (a scheduled prune, or a pressure prune still
// under way: the next tick looks again). A store with no scheduled run
// this tick gets a worker only when it is below min_free now; after
// scheduled runs, the worker reads the free space again. It returns
// stores with the stores added.
func (s *Scheduler) addPressure(byStore map[string][]pendingRun, stores []string) []string {
	for _, j := range s.PressureJobs() {
		if s.Only != "" && j.Key != s.Only {
			continue
		}
		if s.storeBusy(j.Store) {
			continue
		}
		r := pendingRun{j: j, pressure: true}
		if !slices.Contains(stores, j.Store) {
			under, err := s.underPressure(j)
			if err != nil {
				s.log().Error("reading free space", "job", j.Key, "store", j.Store, "error", err)
				continue
			} else if !under {
				continue
			}
			r.checked = true
			stores = append(stores, j.Store)
		}
		byStore[j.Store] = append(byStore[j.Store], r)
	}
	return stores
}

func (s *Scheduler) underPressure(j Job) (bool, error) {
	free := s.Free
	if free == nil {
		free = func(store string) (pressure.Space, error) { return pressure.Statfs(store)() }
	}
	sp, err := free(j.Store)
	if err != nil {
		return false, err
	}
	minFree, _, err := j.Limits.Resolve(sp.Total)
	return sp.Avail < minFree, err
}

func (s *Scheduler) runPressure(ctx context.Context, j Job) RunOutcome {
	out := RunOutcome{Job: j, Due: s.now()}
	log := s.log().With("job", j.Key, "type", string(j.Type), "store", j.Store, "owner", j.Owner)
	store, err := pkgstore.Open(j.FSRoot)
	if err != nil {
		return s.pressureNotRun(j, out, log, err)
	}
	defer store.Close()
	unlock, err := store.Lock(ctx, retention.LockWait(s.LockTimeout))
	if err != nil {
		return s.pressureNotRun(j, out, log, err)
	}
	defer unlock()
	if under, err := s.underPressure(j); err != nil || !under {
		out.Skipped = SkippedEnoughFree
		log.Info("pressure prune skipped", "reason", out.Skipped)
		return out
	}
	start := s.now()
	res := s.runFunc()(s.withApply(ctx, j), j, store, start).withErrText()
	out.Ran, out.Result = true, res
	attrs := []any{"ok", res.OK, "removed", res.Removed, "bytes_freed", res.BytesFreed, "free_before", res.FreeBefore, "free_after", res.FreeAfter, "seconds", s.now().Sub(start).Seconds()}
	logRun(log, res, "pressure prune failed", "pressure prune ran", attrs)
	return out
}

// pressureNotRun reports a pressure prune that could not run (its store
// could not be opened or locked): logged at ERROR, told to NotRun; the
// next check tries again.
func (s *Scheduler) pressureNotRun(j Job, out RunOutcome, log *slog.Logger, err error) RunOutcome {
	out.Skipped, out.cause = err.Error(), err
	log.Error("pressure prune not run; retried at the next check", "error", err)
	if s.NotRun != nil {
		s.NotRun(j, out.Skipped)
	}
	return out
}
