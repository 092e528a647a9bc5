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
// waits for it and gets its Outcome.
type flight struct {
	done chan struct{}
	out  Outcome
	err  error
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
// its Outcome. The run counts as the job's run for its latest due time
// (it is recorded as any run is), so a scheduled run that was due is not
// made again: a Supervisor's purge after an update never races the timed
// one, and does not double it. A run needs the store's lock, as RunDue's
// does. ctx ending stops the wait (a run already started sees it too).
func (s *Scheduler) Trigger(ctx context.Context, key string) (Outcome, error) {
	var job *Job
	for _, j := range s.Jobs() {
		if j.Key == key {
			job = &j
			break
		}
	}
	if job == nil {
		return Outcome{}, fmt.Errorf("%w: %q", ErrNoJob, key)
	}
	s.fmu.Lock()
	if s.pending == nil {
		s.pending = map[string]*flight{}
	}
	f, joined := s.pending[key]
	if !joined {
		f = &flight{done: make(chan struct{})}
		s.pending[key] = f
	}
	s.fmu.Unlock()
	if !joined {
		s.fly(ctx, *job, f)
	}
	select {
	case <-f.done:
		return f.out, f.err
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}

// fly runs a pending flight once the job's slot is free.
func (s *Scheduler) fly(ctx context.Context, j Job, f *flight) {
	defer close(f.done)
	slot := s.slot(j.Key)
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		s.fmu.Lock()
		delete(s.pending, j.Key)
		s.fmu.Unlock()
		f.err = ctx.Err()
		return
	}
	defer func() { <-slot }()
	// From here on, a new Trigger makes a new flight: this one may have
	// begun before what it wants to see.
	s.fmu.Lock()
	delete(s.pending, j.Key)
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
