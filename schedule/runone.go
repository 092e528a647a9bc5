package schedule

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// runOne runs a scheduled job for its due time in its store's worker.
func (s *Scheduler) runOne(ctx context.Context, j Job, due time.Time) RunOutcome {
	out := RunOutcome{Job: j, Due: due}
	log := s.log().With("job", j.Key, "type", string(j.Type), "store", j.Store, "owner", j.Owner, "due", due.UTC().Format(time.RFC3339))
	store, err := pkgstore.Open(j.FSRoot)
	if err != nil {
		return s.storeGone(j, out, log, err)
	}
	defer store.Close()
	s.storeBack(j, log)
	unlock, notice, err := s.lockStore(ctx, j, store, log)
	if err != nil {
		return s.notRun(j, out, log, err)
	}
	if unlock != nil {
		defer unlock()
	}
	ran, err := s.ranAlready(j, due)
	if err != nil {
		return s.notRun(j, out, log, err)
	}
	if ran {
		out.Status = AlreadyRan
		log.Info("job skipped", "reason", "already ran for this due time")
		return out
	}
	start := s.now()
	res, err := s.run(ctx, log, j, store, start)
	if notice != "" {
		res.Notice = notice
	}
	end := s.now()
	out.Status, out.Result, out.Err = Ran, res, err
	s.recordRun(j, RunRecord{Due: due, Start: start, End: end, Result: res}, log)
	attrs := []any{"ok", res.OK, "problems", res.Problems, "removed", res.Removed, "bytes_freed", res.BytesFreed, "paced_seconds", res.PacedSeconds, "seconds", end.Sub(start).Seconds()}
	if res.HistoryError != "" {
		log.Error("the run's history could not be written", "error", res.HistoryError)
	}
	logRun(log, res, "job failed", "job ran", attrs)
	return out
}

func (s *Scheduler) run(ctx context.Context, log *slog.Logger, j Job, store *pkgstore.Store, now time.Time) (RunResult, error) {
	run := s.Run
	if run == nil {
		run = defaultRun
	}
	res, err := run(s.withApply(ctx, j, log), j, store, now)
	if err != nil {
		res.OK, res.Error = false, err.Error()
	}
	return res, err
}

func logRun(log *slog.Logger, res RunResult, failed, ran string, attrs []any) {
	if res.Error != "" {
		log.Error(failed, append(attrs, "error", res.Error)...)
		return
	}
	log.Info(ran, attrs...)
}

// notRun reports a due job that could not run; it stays due.
func (s *Scheduler) notRun(j Job, out RunOutcome, log *slog.Logger, err error) RunOutcome {
	out.Err = err
	log.Error("job not run; it stays due and is retried", "error", err.Error())
	s.failed(j, err, true)
	return out
}

// failed tells NotRun of a job that could not run and, when record, keeps
// why as its LastError.
func (s *Scheduler) failed(j Job, err error, record bool) {
	if s.NotRun != nil {
		s.NotRun(j, err)
	}
	if !record {
		return
	}
	s.update(func(st *stateFile) bool {
		js := st.Jobs[j.Key]
		if js != nil {
			js.LastError = fmt.Sprintf("%s: %s", s.now().UTC().Format(time.RFC3339), err)
		}
		return js != nil
	})
}

// storeBack forgets that the job's store could not be opened.
func (s *Scheduler) storeBack(j Job, log *slog.Logger) {
	s.umu.Lock()
	defer s.umu.Unlock()
	if s.absent[j.Key] != nil {
		delete(s.absent, j.Key)
		log.Info("the job's store can be opened again")
	}
}

// lockStore takes the store's lock for the job: shared for a check, which
// goes on without it where it cannot be taken (notice says so).
func (s *Scheduler) lockStore(ctx context.Context, j Job, store *pkgstore.Store, log *slog.Logger) (unlock func() error, notice string, err error) {
	wait := retention.LockWait(s.LockTimeout)
	if wait > 0 {
		log.Debug("waiting for the store's lock", "timeout", wait.String())
	}
	if j.Type != Check {
		unlock, err = store.Lock(ctx, wait)
		return unlock, "", err
	}
	unlock, without, err := store.ReadLock(ctx, wait)
	if without != nil {
		log.Warn("checking without the store's lock; a run in progress may show as problems", "error", without)
		return nil, fmt.Sprintf("checked without the store's lock (%v); a run in progress may show as problems", without), nil
	}
	return unlock, "", err
}

// ranAlready says, under the store's lock, whether this due time ran
// meanwhile: as the state file or this Scheduler's memory says, or for a
// prune the store's history (the witness left when the state could not be
// written).
func (s *Scheduler) ranAlready(j Job, due time.Time) (bool, error) {
	st, err := s.readState()
	if err != nil {
		return false, err
	}
	js := s.latest(j.Key, st.Jobs[j.Key])
	if js == nil || (js.LastDue != nil && !js.LastDue.Before(due)) {
		return true, nil
	}
	return j.Type == Prune && ranInHistory(j, due), nil
}

// ranInHistory reports whether the job's history records a run of it
// started at or after due.
func ranInHistory(j Job, due time.Time) bool {
	journal, err := history.ForFSRoot(j.FSRoot)
	if err != nil {
		return false
	}
	recs, _, err := journal.Read()
	if err != nil {
		return false
	}
	for _, r := range recs {
		if r.Kind == history.KindRun && r.JobKey == j.Key && !r.Time.Before(due) {
			return true
		}
	}
	return false
}

// recordRun records a run in the state and in this scheduler's memory.
func (s *Scheduler) recordRun(j Job, run RunRecord, log *slog.Logger) {
	var recorded jobState
	record := func(js *jobState) {
		d, r := run.Due, run
		js.LastDue = &d
		js.LastRun = &r
		js.Runs++
		js.LastError = ""
		js.CatchUp = nil
		recorded = *js
		kept := *recorded.LastRun
		kept.Result.Plan, kept.Result.ProblemList = nil, nil
		recorded.LastRun = &kept
	}
	err := s.update(func(st *stateFile) bool {
		js := st.Jobs[j.Key]
		if js == nil {
			m, ok := s.memJob(j.Key)
			if !ok {
				return false
			}
			js = &m
			st.Jobs[j.Key] = js
		} else if m, ok := s.memJob(j.Key); ok && m.Runs > js.Runs {
			// Runs made while the file could not be written count.
			js.Runs = m.Runs
		}
		record(js)
		return true
	})
	if err != nil {
		if m, ok := s.memJob(j.Key); ok {
			record(&m)
		}
	}
	if recorded.Runs > 0 {
		s.remember(j.Key, recorded)
	}
	if err != nil {
		log.Error("recording the run; this due time is not run again while this process lives", "error", err)
		s.umu.Lock()
		if s.unrecorded == nil {
			s.unrecorded = map[string]unrecorded{}
		}
		s.unrecorded[j.Key] = unrecorded{due: run.Due, err: err.Error()}
		s.umu.Unlock()
		return
	}
	s.umu.Lock()
	delete(s.unrecorded, j.Key)
	s.umu.Unlock()
}

// PressureJobs returns the pressure jobs of the last Reload, one per
// store.
func (s *Scheduler) PressureJobs() []Job {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pressure
}

// pressureOnly dispatches the stores' pressure jobs alone.
func (s *Scheduler) pressureOnly(ctx context.Context, wait bool) []RunOutcome {
	byStore := map[string][]pendingRun{}
	return s.dispatch(ctx, byStore, s.addPressure(byStore, nil), wait)
}

// addPressure adds to each store's runs its pressure job, unless the
// store's worker is busy: the next tick looks again.
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
		out.Status = EnoughFree
		log.Info("pressure prune skipped", "reason", "enough free space now")
		return out
	}
	start := s.now()
	res, err := s.run(ctx, log, j, store, start)
	out.Status, out.Result, out.Err = Ran, res, err
	attrs := []any{"ok", res.OK, "removed", res.Removed, "bytes_freed", res.BytesFreed, "free_before", res.FreeBefore, "free_after", res.FreeAfter, "seconds", s.now().Sub(start).Seconds()}
	logRun(log, res, "pressure prune failed", "pressure prune ran", attrs)
	return out
}

func (s *Scheduler) pressureNotRun(j Job, out RunOutcome, log *slog.Logger, err error) RunOutcome {
	out.Err = err
	log.Error("pressure prune not run; retried at the next check", "error", err)
	s.failed(j, err, false)
	return out
}

// absence is a job whose store could not be opened: why, and when it is
// tried again.
type absence struct {
	why   string
	next  time.Time
	delay time.Duration
}

// maxStoreBackoff bounds the wait between tries of a job whose store
// cannot be opened.
const maxStoreBackoff = 15 * time.Minute

// storeGone handles a due job whose store cannot be opened (unmounted,
// moved, not there yet): it stays due, and is tried again after a minute,
// then twice as long each time, or as soon as the store exists.
func (s *Scheduler) storeGone(j Job, out RunOutcome, log *slog.Logger, err error) RunOutcome {
	why := err.Error()
	out.Err = err
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
	if first {
		log.Error("job not run: its store cannot be opened; it stays due, and is tried again at growing intervals (up to 15m) and as soon as the store exists (not logged again while the reason is the same)", "error", why)
	} else {
		log.Debug("job not run: its store still cannot be opened", "error", why, "retry_in", a.delay.String())
	}
	s.failed(j, err, first)
	return out
}

// backingOff reports whether a job whose store could not be opened waits
// for its next try: the store is still missing and its time has not come.
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
