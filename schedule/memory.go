package schedule

import (
	"time"
)

// unrecorded is a run this process made whose record could not be
// written: the same due time is not run again while the process lives.
type unrecorded struct {
	due time.Time
	err string
}

func (s *Scheduler) lastUnrecorded(key string) (unrecorded, bool) {
	s.umu.Lock()
	defer s.umu.Unlock()
	u, ok := s.unrecorded[key]
	return u, ok
}

// memJob returns the job's state as this scheduler last knew it (its
// Reload, its own runs), whatever the state file holds now.
func (s *Scheduler) memJob(key string) (JobState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.view == nil || s.view.Jobs[key] == nil {
		return JobState{}, false
	}
	return *s.view.Jobs[key], true
}

// remember records a job's state as this scheduler wrote or read it.
func (s *Scheduler) remember(key string, js JobState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.view != nil {
		s.view.Jobs[key] = &js
	}
}

// restore puts back into the state file the jobs (and their schedules)
// it no longer holds although this scheduler runs them: the file was
// deleted or replaced, or another hab-gc rewrote it. Their state is as
// this scheduler last knew it, so no due time runs twice and none is
// lost.
func (s *Scheduler) restore(st *State, jobs []Job) {
	var keys []string
	s.mu.RLock()
	view := s.view
	for _, j := range jobs {
		if st.Jobs[j.Key] == nil && view != nil && view.Jobs[j.Key] != nil {
			js := *view.Jobs[j.Key]
			st.Jobs[j.Key] = &js
			keys = append(keys, j.Key)
		}
	}
	s.mu.RUnlock()
	if len(keys) == 0 {
		return
	}
	s.log().Warn("jobs missing from the state file (deleted, or rewritten by another hab-gc) are restored from this daemon's memory", "state", s.statePlace(), "jobs", keys)
	if s.ReadOnly {
		return
	}
	err := s.update(func(disk *State) bool {
		s.mu.RLock()
		defer s.mu.RUnlock()
		changed := false
		for _, k := range keys {
			if disk.Jobs[k] != nil {
				continue
			}
			js := *st.Jobs[k]
			disk.Jobs[k] = &js
			changed = true
			for _, m := range js.Members {
				if _, ok := disk.Schedules[m]; !ok && view != nil {
					if ss, ok := view.Schedules[m]; ok {
						disk.Schedules[m] = ss
					}
				}
			}
		}
		return changed
	})
	if err != nil {
		s.log().Error("restoring jobs to the state file", "error", err)
	}
}
