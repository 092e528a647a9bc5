package schedule

import (
	"fmt"
	"time"
)

// JobStatus is a job with its persisted state and next due time.
type JobStatus struct {
	Job
	State JobState
	Next  time.Time
	// InState reports whether the state file holds the job. When it does
	// not (the file was deleted or replaced, or no daemon has loaded the
	// job's definition yet), State is what this Scheduler's Reload made
	// of it in memory, and Next holds only if a daemon knows the job: a
	// running daemon that loaded it restores it from its memory when it
	// falls due (RunDue), and an exported timer's first firing runs it;
	// otherwise it starts when a daemon next starts or reloads, at its
	// first due time after that.
	InState bool
}

// Status returns every job's state as persisted (or, for a job the state
// file does not hold, as Reload left it in memory: InState is false),
// and when it runs next. A run this process could not record shows in
// LastError.
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
		js, in := JobState{}, false
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
		out = append(out, JobStatus{Job: j, State: js, Next: next, InState: in})
	}
	return out, nil
}
