package schedule

import (
	"errors"
)

// updateState runs f on the state read fresh from disk, under an
// exclusive lock on StatePath.lock (waiting at most StateLockTimeout), and
// saves it when f returns true. Two schedulers sharing a state file never
// lose each other's updates.
//
// The lock file follows the rules of the store's lock file: it is
// opened without following a symlink or blocking, created mode 0600, and
// must be a regular file with one link owned by the effective user;
// anything else at its name is refused (ErrState) and never written.
func (s *Scheduler) updateState(f func(*State) bool) error {
	return s.update(nil, f)
}

// updateJobs is updateState for an update of the jobs with keys alone
// (a claim, a run's record): f is given a State holding copies of those
// jobs only (those the files hold), and no schedules (a nil map: an
// update of schedules uses updateState); only those jobs are compared
// and written. It costs in proportion to the jobs, not to the fleet.
func (s *Scheduler) updateJobs(keys []string, f func(*State) bool) error {
	if keys == nil {
		keys = []string{}
	}
	return s.update(keys, f)
}

// update is updateState (keys nil) or updateJobs.
func (s *Scheduler) update(keys []string, f func(*State) bool) error {
	path := s.StatePath
	if path == "" {
		return ErrNoStatePath
	}
	wait := s.StateLockTimeout
	if wait <= 0 {
		wait = DefaultStateLockTimeout
	}
	root, err := stateDir(s.StateRoot, path)
	if err != nil {
		return err
	}
	defer root.Close()
	unlock, err := lockState(root, path, wait)
	if err != nil {
		return err
	}
	defer unlock()
	s.smu.Lock()
	defer s.smu.Unlock()
	d, err := s.diskLocked(path)
	if errors.Is(err, ErrCorruptState) {
		var st *State
		if st, err = s.keepAside(path, err); err == nil {
			d = &diskState{st: st} // written whole
		}
	}
	if err != nil {
		return err
	}
	// f changes a copy: an update that is not saved (or fails) leaves
	// the state as the files hold it.
	var w *State
	if keys == nil {
		w = cloneState(d.st)
	} else {
		w = partialState(d.st, keys)
	}
	if !f(w) {
		return nil
	}
	var rec journalRecord
	full := false
	whole := func() *State { return w }
	if keys == nil {
		rec, full = diffState(d.st, w)
	} else {
		rec, full = diffJobs(d.st, w, keys)
		whole = func() *State {
			st := d.st.shallow() // written, not changed: the kept jobs are shared
			rec.apply(st)
			return st
		}
	}
	s.disk, err = writeState(root, path, d, rec, full, whole)
	if err == nil {
		s.markState()
	}
	return err
}

// diskLocked returns the state as its files hold it: as this scheduler
// last read or wrote them when their marks are unchanged (nothing is read
// again), else read. Called with smu held.
func (s *Scheduler) diskLocked(path string) (*diskState, error) {
	if d := s.disk; d != nil && d.mark.base.ok && marksOf(path) == d.mark {
		return d, nil
	}
	s.disk = nil
	d, err := loadState(path)
	if err != nil {
		return nil, err
	}
	s.disk = d
	return d, nil
}

// readState returns the state as its files hold it (read only when they
// changed since this scheduler last read or wrote them), and marks it as
// seen (stateChanged). Its maps are its own, but its JobStates are the
// ones the scheduler keeps of the files: a caller copies one before
// changing it.
func (s *Scheduler) readState() (*State, error) {
	s.smu.Lock()
	defer s.smu.Unlock()
	d, err := s.diskLocked(s.StatePath)
	if err != nil {
		return nil, err
	}
	s.umu.Lock()
	s.stateSeen = d.mark
	s.umu.Unlock()
	return d.st.shallow(), nil
}

// shareView makes the jobs of view (what Reload leaves in memory) that
// are as the state's files hold them the very JobStates of disk, and
// copies the others out of the clone they were made in, so that the two
// do not each hold the fleet: neither is ever changed in place (entries
// are replaced: remember, journalRecord.apply).
func (s *Scheduler) shareView(view *State) {
	s.smu.Lock()
	defer s.smu.Unlock()
	var disk map[string]*JobState
	if s.disk != nil {
		disk = s.disk.st.Jobs
	}
	for k, js := range view.Jobs {
		if js == nil {
			continue
		}
		if d := disk[k]; d != nil && jobStateEqual(d, js) {
			view.Jobs[k] = d
		} else {
			view.Jobs[k] = copyJobState(js)
		}
	}
}
