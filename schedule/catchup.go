package schedule

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// missedGrace is how late after the start a due time may be seen and
// still count as on time (a timer's accuracy, a slow start).
const missedGrace = 2 * time.Minute

// catchUpDelay is a job's stable per-machine delay in [0, bound), to the
// second.
func catchUpDelay(machine, key string, bound time.Duration) time.Duration {
	if bound < time.Second {
		return 0
	}
	d := sha256.Sum256([]byte("hab-gc catch-up v1\x00" + machine + "\x00" + key))
	return time.Duration(binary.BigEndian.Uint64(d[:8])%uint64(bound/time.Second)) * time.Second
}

// holdCatchUp reports whether a run due before the Scheduler started
// waits its catch-up delay. When it runs is recorded, so that a restart
// does not put it off.
func (s *Scheduler) holdCatchUp(j Job, js *jobState, due, now time.Time) bool {
	if j.Key == s.Only && js.LastDue == nil && js.Runs == 0 {
		// An exported timer's first firing: the timer chose when, and
		// waiting would hold its oneshot service.
		return false
	}
	s.umu.Lock()
	defer s.umu.Unlock()
	if s.CatchUpSpread <= 0 || s.started.IsZero() || !due.Before(s.started.Add(-missedGrace)) {
		delete(s.catchUp, j.Key)
		return false
	}
	s.mu.RLock()
	machine := s.machines[j.root]
	s.mu.RUnlock()
	at := s.started.Add(catchUpDelay(machine, j.Key, s.CatchUpSpread))
	if c := js.CatchUp; c != nil && c.Due.Equal(due) && c.At.Before(at) && !c.At.Before(due) {
		at = c.At
	} else if !s.ReadOnly && now.Before(at) {
		cu := &catchUp{Due: due, At: at}
		js.CatchUp = cu
		s.remember(j.Key, *js)
		s.umu.Unlock()
		err := s.update(func(st *stateFile) bool {
			p := st.Jobs[j.Key]
			if p != nil {
				p.CatchUp = cu
			}
			return p != nil
		})
		s.umu.Lock()
		if err != nil {
			s.log().Error("recording when a missed run catches up", "job", j.Key, "error", err)
		}
	}
	if !now.Before(at) {
		delete(s.catchUp, j.Key)
		return false
	}
	if s.catchUp == nil {
		s.catchUp = map[string]time.Time{}
	}
	if _, known := s.catchUp[j.Key]; !known {
		s.log().Info("missed run waits its catch-up delay", "job", j.Key, "due", due.UTC().Format(time.RFC3339), "runs_at", at.UTC().Format(time.RFC3339))
	}
	s.catchUp[j.Key] = at
	return true
}

// pendingCatchUp returns when the earliest missed run waiting its delay
// runs (zero: none waits).
func (s *Scheduler) pendingCatchUp() time.Time {
	s.umu.Lock()
	defer s.umu.Unlock()
	var first time.Time
	for _, at := range s.catchUp {
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	return first
}
