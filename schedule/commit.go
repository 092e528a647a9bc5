package schedule

import "sync"

// committer batches updates of the state file (group commit): while one
// write is under way, the updates that arrive wait and are applied
// together in the next, so runs that end at once (a hundred checks due
// the same minute) do not each wait for a full read and fsynced write of
// a large state. Each caller returns once its own update is on disk (or
// failed), as with updateState.
type committer struct {
	qmu    sync.Mutex
	queue  []*commitReq
	writer sync.Mutex
}

type commitReq struct {
	keys []string
	f    func(*State) bool
	done chan error
}

// commit is updateJobs(keys, f), batched.
func (s *Scheduler) commit(keys []string, f func(*State) bool) error {
	c := &s.committer
	req := &commitReq{keys: keys, f: f, done: make(chan error, 1)}
	c.qmu.Lock()
	c.queue = append(c.queue, req)
	c.qmu.Unlock()
	c.writer.Lock()
	defer c.writer.Unlock()
	select {
	case err := <-req.done: // the writer before took it along
		return err
	default:
	}
	c.qmu.Lock()
	batch := c.queue
	c.queue = nil
	c.qmu.Unlock()
	var all []string
	for _, r := range batch {
		all = append(all, r.keys...)
	}
	err := s.updateJobs(all, func(st *State) bool {
		changed := false
		for _, r := range batch {
			if r.f(st) {
				changed = true
			}
		}
		return changed
	})
	for _, r := range batch {
		r.done <- err
	}
	return <-req.done
}
