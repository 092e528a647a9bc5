package schedule

import "time"

// unrecorded is a run whose record could not be written: its due time is
// not run again while the process lives.
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

// memJob returns the job's state as this scheduler last knew it, whatever
// the state file holds now.
func (s *Scheduler) memJob(key string) (jobState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.view == nil || s.view.Jobs[key] == nil {
		return jobState{}, false
	}
	return *s.view.Jobs[key], true
}

func (s *Scheduler) remember(key string, js jobState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.view != nil {
		s.view.Jobs[key] = &js
	}
}

// latest is the job's state as the file (js) or the memory holds it,
// whichever ran later; a later run in the file (another scheduler's) is
// remembered.
func (s *Scheduler) latest(key string, js *jobState) *jobState {
	m, ok := s.memJob(key)
	switch {
	case ok && (js == nil || m.LastDue != nil && (js.LastDue == nil || js.LastDue.Before(*m.LastDue))):
		return &m // a run the file does not show (not writable)
	case ok && js.LastDue != nil && (m.LastDue == nil || m.LastDue.Before(*js.LastDue)):
		s.remember(key, *js)
	}
	return js
}

// restore puts back into the state file the jobs (and their schedules)
// this scheduler runs that it no longer holds: deleted, replaced, or
// rewritten by another hab-gc.
func (s *Scheduler) restore(st *stateFile, jobs []Job) {
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
	err := s.update(func(disk *stateFile) bool {
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
				if _, had := disk.Schedules[m]; !had {
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
