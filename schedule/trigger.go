package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNoJob is returned by Trigger and Next for a key no job has.
var ErrNoJob = errors.New("no such job")

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
func (s *Scheduler) Trigger(ctx context.Context, key string) (RunOutcome, error) {
	if s.StatePath == "" {
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
	// From here on, a new Trigger makes a new flight: this one may have
	// begun before what it wants to see.
	s.fmu.Lock()
	if s.pending[j.Key] == f {
		delete(s.pending, j.Key)
	}
	s.fmu.Unlock()
	now := s.now()
	due := now
	if st, err := LoadState(s.StatePath); err == nil {
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
