package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNoJob is returned by Trigger and Next for a key no job has.
var ErrNoJob = errors.New("no such job")

// ErrRunFailed is wrapped by Trigger's error when the job ran and failed;
// the error wraps the run's own error too (Outcome.Result.Err:
// retention.ErrDamaged, pkgstore.ErrLocked, ErrRemovalsFailed...).
var ErrRunFailed = errors.New("the job's run failed")

// ErrNotRun is wrapped by Trigger's error when the job could not run and
// stays due (Outcome.Skipped says why: the store's lock not taken in
// time, an unusable store).
var ErrNotRun = errors.New("the job did not run")

// flight is a triggered run: every Trigger that asks before it starts
// waits for it and gets its RunOutcome. Its context is its own: it ends only
// when every Trigger waiting for it has given up (waiters, under the
// Scheduler's fmu), so that one caller's cancel never drops another's
// request.
type flight struct {
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	waiters int
	out     RunOutcome
	err     error
}

// slot serialises the runs of one job in this process (RunDue's and
// Trigger's): a channel of one, so that waiting for it can be cancelled.
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

// Trigger runs the job with key now and waits for it, as containerd's
// garbage-collection scheduler's ScheduleAndWait does: a run of the job
// that is under way (scheduled or triggered) is waited for, then one more
// run starts, and every Trigger that asks meanwhile shares that run and
// its RunOutcome. The run counts as the job's run for its latest due time
// (it is recorded as any run is), so a scheduled run that was due is not
// made again: a Supervisor's purge after an update never races the timed
// one, and does not double it. A run needs the store's lock, as RunDue's
// does. ctx ending stops this caller's wait only: the run goes on while another
// Trigger waits for it, and ends (sees its context cancelled) when none
// does. A run that finished is reported as run, whenever ctx ended.
//
// A ctx already ended when Trigger is called never starts (nor records)
// a run: Trigger returns ctx's error at once.
//
// The error is the one place to look for failure: it is nil only when the
// job ran and succeeded, or its due time was run by another scheduler
// (Outcome.Skipped SkippedAlreadyRan or running) or a pressure job found
// enough free space — exactly when Outcome.Failed is false. A run that
// failed returns an error wrapping ErrRunFailed and the run's own error
// (Outcome.Result.Err), with the Outcome; a job that could not run returns
// one wrapping ErrNotRun and, when there is one, its cause (such as
// pkgstore.ErrLocked); ctx ending before a run finished returns ctx's
// error; ErrNoJob and ErrNoStatePath as named.
func (s *Scheduler) Trigger(ctx context.Context, key string) (RunOutcome, error) {
	o, err := s.trigger(ctx, key)
	if err == nil {
		err = o.err()
	}
	return o, err
}

// err is the error Trigger returns for an Outcome (nil when it did not
// fail).
func (o RunOutcome) err() error {
	switch {
	case !o.Failed():
		return nil
	case o.Ran && o.Result.Err != nil:
		return fmt.Errorf("%w: job %s: %w", ErrRunFailed, o.Job.Key, o.Result.Err)
	case o.Ran:
		return fmt.Errorf("%w: job %s: %s", ErrRunFailed, o.Job.Key, o.Result.Error)
	case o.cause != nil:
		return fmt.Errorf("%w: job %s: %w", ErrNotRun, o.Job.Key, o.cause)
	default:
		return fmt.Errorf("%w: job %s: %s", ErrNotRun, o.Job.Key, o.Skipped)
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
	// The last one waiting: the run is cancelled, and what it did (it may
	// have removed releases before it saw that) is reported.
	f.cancel()
	s.fmu.Unlock()
	<-f.done
	s.fmu.Lock()
	if f.out.Ran {
		return f.out, f.err
	}
	return RunOutcome{}, ctx.Err()
}

// fly runs a pending flight once the job's slot is free.
func (s *Scheduler) fly(ctx context.Context, j Job, f *flight) {
	defer f.cancel()
	defer func() {
		s.fmu.Lock()
		close(f.done)
		s.fmu.Unlock()
	}()
	slot := s.slot(j.Key)
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		s.fmu.Lock()
		if s.pending[j.Key] == f {
			delete(s.pending, j.Key)
		}
		s.fmu.Unlock()
		f.err = ctx.Err()
		return
	}
	defer func() { <-slot }()
	if err := ctx.Err(); err != nil {
		// Every caller gave up while the slot was busy: no run.
		s.fmu.Lock()
		if s.pending[j.Key] == f {
			delete(s.pending, j.Key)
		}
		s.fmu.Unlock()
		f.err = err
		return
	}
	// From here on, a new Trigger makes a new flight: this one may have
	// begun before what it wants to see.
	s.fmu.Lock()
	if s.pending[j.Key] == f {
		delete(s.pending, j.Key)
	}
	s.fmu.Unlock()
	now := s.now()
	due := now
	if st, err := s.readState(); err == nil {
		if js := st.Jobs[j.Key]; js != nil {
			_, crons := s.snapshot()
			if d, ok := dueAt(crons[j.Key], js, now); ok {
				due = d // merged with the scheduled run that is due
			}
		}
	}
	f.out = s.runOne(ctx, j, due)
	f.out.Triggered = true
	s.umu.Lock()
	delete(s.catchUp, j.Key) // a missed run waiting its delay was this one
	s.umu.Unlock()
}

// dueAt is due for a job whose schedule may be missing.
func dueAt(c *Cron, js *JobState, now time.Time) (time.Time, bool) {
	if c == nil {
		return time.Time{}, false
	}
	return due(c, js, now)
}

// Next returns when the job with key runs next (an overdue job: now).
func (s *Scheduler) Next(key string) (time.Time, error) {
	sts, err := s.Status()
	if err != nil {
		return time.Time{}, err
	}
	for _, st := range sts {
		if st.Key == key {
			return st.Next, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: %q", ErrNoJob, key)
}
