package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNoJob is returned by Trigger for a key no job has.
var ErrNoJob = errors.New("no such job")

// ErrRunFailed is wrapped, with the run's own error, by Trigger's error
// when the job ran and failed.
var ErrRunFailed = errors.New("the job's run failed")

// ErrNotRun is wrapped, with the reason, by Trigger's error when the job
// could not run and stays due.
var ErrNotRun = errors.New("the job did not run")

// flight is a triggered run, shared by every Trigger that asks before it
// starts, and cancelled when all of them have given up.
type flight struct {
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	waiters int
	out     RunOutcome
	err     error
}

// slot serialises one job's runs; a channel, so that waiting can be
// cancelled.
func (s *Scheduler) slot(key string) chan struct{} {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if s.slots == nil {
		s.slots = map[string]chan struct{}{}
	}
	c := s.slots[key]
	if c == nil {
		c = make(chan struct{}, 1)
		s.slots[key] = c
	}
	return c
}

// Trigger runs the job with key now and waits for it, as containerd's GC
// scheduler's ScheduleAndWait: after a run under way, one more starts,
// shared by every Trigger that asks meanwhile and counted as the job's
// latest due run; it is cancelled when no caller waits any more. The
// error is nil exactly when the outcome did not fail; else it wraps
// ErrRunFailed or ErrNotRun with the cause, or is ctx's.
func (s *Scheduler) Trigger(ctx context.Context, key string) (RunOutcome, error) {
	o, err := s.trigger(ctx, key)
	if err == nil {
		err = o.err()
	}
	return o, err
}

func (o RunOutcome) err() error {
	switch {
	case !o.Failed():
		return nil
	case o.Status == Ran:
		return fmt.Errorf("%w: job %s: %w", ErrRunFailed, o.Job.Key, o.Err)
	default:
		return fmt.Errorf("%w: job %s: %w", ErrNotRun, o.Job.Key, o.Err)
	}
}

func (s *Scheduler) trigger(ctx context.Context, key string) (RunOutcome, error) {
	if !s.hasState() {
		return RunOutcome{}, ErrNoStatePath
	}
	var job *Job
	for _, j := range s.Jobs() {
		if j.Key == key {
			job = &j
			break
		}
	}
	if job == nil {
		return RunOutcome{}, fmt.Errorf("%w: %q", ErrNoJob, key)
	}
	if err := ctx.Err(); err != nil {
		return RunOutcome{}, err // never a run for a caller that gave up
	}
	s.fmu.Lock()
	if s.pending == nil {
		s.pending = map[string]*flight{}
	}
	f, joined := s.pending[key]
	if !joined {
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{done: make(chan struct{}), ctx: fctx, cancel: cancel}
		s.pending[key] = f
	}
	f.waiters++
	s.fmu.Unlock()
	if !joined {
		go s.fly(f.ctx, *job, f)
	}
	select {
	case <-f.done:
		return f.out, f.err
	case <-ctx.Done():
	}
	s.fmu.Lock()
	defer s.fmu.Unlock()
	select {
	case <-f.done: // finished meanwhile: its outcome is the truth
		return f.out, f.err
	default:
	}
	if f.waiters--; f.waiters > 0 {
		return RunOutcome{}, ctx.Err() // the run goes on for the others
	}
	// The last one waiting cancels the run, and reports what it did.
	f.cancel()
	s.fmu.Unlock()
	<-f.done
	s.fmu.Lock()
	if f.out.Status == Ran {
		return f.out, f.err
	}
	return RunOutcome{}, ctx.Err()
}

// fly runs a pending flight once the job's slot is free. From then on a
// new Trigger makes a new flight: this one may have begun before what it
// wants to see.
func (s *Scheduler) fly(ctx context.Context, j Job, f *flight) {
	defer f.cancel()
	defer func() {
		s.fmu.Lock()
		close(f.done)
		s.fmu.Unlock()
	}()
	land := func() {
		s.fmu.Lock()
		if s.pending[j.Key] == f {
			delete(s.pending, j.Key)
		}
		s.fmu.Unlock()
	}
	slot := s.slot(j.Key)
	select {
	case slot <- struct{}{}:
		defer func() { <-slot }()
	case <-ctx.Done():
	}
	land()
	if f.err = ctx.Err(); f.err != nil {
		return // every caller gave up while the slot was busy: no run
	}
	now := s.now()
	due := now
	_, crons := s.snapshot()
	if st, err := s.readState(); err == nil && st.Jobs[j.Key] != nil && crons[j.Key] != nil {
		if d, ok := crons[j.Key].LastDue(anchor(st.Jobs[j.Key]), now); ok {
			due = d // merged with the scheduled run that is due
		}
	}
	f.out = s.runOne(ctx, j, due)
	s.umu.Lock()
	delete(s.catchUp, j.Key) // a missed run waiting was this one
	s.umu.Unlock()
}

// JobStatus is a job with its last run, run count, last error and next
// due time.
type JobStatus struct {
	Job
	LastRun   *RunRecord
	Runs      int
	LastError string // the last attempt that could not run
	Next      time.Time
	InState   bool // false: the state file does not hold it; this is memory
}

// Status returns every job's state and next run (an overdue job: now). A
// run this process could not record shows in LastError.
func (s *Scheduler) Status() ([]JobStatus, error) {
	st, err := s.load()
	if err != nil {
		return nil, err
	}
	now := s.now()
	jobs, crons := s.snapshot()
	s.mu.RLock()
	view := s.view
	s.mu.RUnlock()
	var out []JobStatus
	for _, j := range jobs {
		js, in := jobState{}, false
		if p := st.Jobs[j.Key]; p != nil {
			js, in = *p, true
		} else if view != nil && view.Jobs[j.Key] != nil {
			js = *view.Jobs[j.Key]
		}
		c := crons[j.Key]
		next := c.Next(now)
		if u, ok := s.lastUnrecorded(j.Key); ok {
			js.LastError = fmt.Sprintf("the run for %s was done but not recorded: %s", u.due.UTC().Format(time.RFC3339), u.err)
			if js.LastDue == nil || js.LastDue.Before(u.due) {
				d := u.due
				js.LastDue = &d
			}
		}
		if d, ok := due(c, &js, now); ok {
			next = d // overdue: runs at the next tick
		}
		out = append(out, JobStatus{Job: j, LastRun: js.LastRun, Runs: js.Runs, LastError: js.LastError, Next: next, InState: in})
	}
	return out, nil
}
