package schedule

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// setBack is how far a job's last due time may lie ahead of the clock and
// be a clock set back a little (an NTP step, a VM restored): the due times
// up to it ran, and are not run again; the job waits for the clock.
const setBack = 24 * time.Hour

// clockWrong says why now is obviously wrong ("" when it is not): before
// NotBefore (the build time), or more than a day (setBack) before the
// oldest record of the state, unless this Scheduler saw the clock go back
// since it started (the records ahead are then its own, made while the
// clock was fast: recoverClock re-anchors them).
func (s *Scheduler) clockWrong(st *stateFile, now time.Time) string {
	if !s.NotBefore.IsZero() && now.Before(s.NotBefore) {
		return "the clock is before this hab-gc was built (" + s.NotBefore.UTC().Format(time.RFC3339) + ")"
	}
	s.umu.Lock()
	wentBack := !s.started.IsZero() && now.Before(s.started.Add(-missedGrace))
	s.umu.Unlock()
	if wentBack || st == nil {
		return ""
	}
	if o := oldestRecord(st); !o.IsZero() && now.Add(setBack).Before(o) {
		return "the clock is more than a day before the state's oldest record (" + o.UTC().Format(time.RFC3339) + ")"
	}
	return ""
}

// holdForClock reports whether the scheduled jobs wait because the clock is
// obviously wrong (clockWrong): nothing runs, nothing is re-anchored, and
// it is said once (at WARN), and again when the clock is right.
func (s *Scheduler) holdForClock(st *stateFile, now time.Time) bool {
	why := s.clockWrong(st, now)
	s.umu.Lock()
	defer s.umu.Unlock()
	was := s.wrongClock
	s.wrongClock = why
	switch {
	case why != "":
		s.startWrong = true // when right, the start is the first right time
		if was == "" {
			s.log().Warn("the clock is obviously wrong; no scheduled job runs until it is right, and the recorded runs are kept", "now", now.UTC().Format(time.RFC3339), "why", why)
		}
		return true
	case was != "":
		s.log().Info("the clock is right again; scheduled jobs run", "now", now.UTC().Format(time.RFC3339))
	}
	if s.startWrong || now.Before(s.started.Add(-missedGrace)) {
		s.started, s.startWrong = now, false
	}
	return false
}

// recoverClock handles a job whose last due time (or creation) lies after
// now: the clock was wrong (ahead) when it was recorded, and has been set
// back.
func (s *Scheduler) recoverClock(j Job, a, now time.Time) {
	s.log().Warn("the job's last due time is in the future: the clock was set back; it runs again at its next due time after now",
		"job", j.Key, "last_due", a.UTC().Format(time.RFC3339), "now", now.UTC().Format(time.RFC3339))
	if m, ok := s.memJob(j.Key); ok && anchor(&m).After(now) {
		m.Since, m.LastDue = now, nil
		s.remember(j.Key, m)
	}
	if s.ReadOnly {
		return
	}
	err := s.update(func(st *stateFile) bool {
		js := st.Jobs[j.Key]
		if js == nil || !anchor(js).After(now) {
			return false
		}
		js.Since, js.LastDue = now, nil
		return true
	})
	if err != nil {
		s.log().Error("recording the clock recovery", "job", j.Key, "error", err)
	}
}

// restamp begins anew, at now, a job that has never run and was first seen
// while the clock was obviously wrong with nothing in the state to stamp it
// with (a damaged state at a boot at 1970): its 1970 creation time would
// make the latest due time since then due, although it may have run before
// the state was lost.
func (s *Scheduler) restamp(j Job, now time.Time) {
	s.log().Warn("the job was first seen while the clock was obviously wrong; it begins now that the clock is right: its next due time runs", "job", j.Key, "now", now.UTC().Format(time.RFC3339))
	if m, ok := s.memJob(j.Key); ok && m.LastDue == nil {
		m.Since = now
		s.remember(j.Key, m)
	}
	if s.ReadOnly {
		return
	}
	err := s.update(func(st *stateFile) bool {
		js := st.Jobs[j.Key]
		if js == nil || js.LastDue != nil || !js.Since.Before(s.NotBefore) {
			return false
		}
		js.Since = now
		return true
	})
	if err != nil {
		s.log().Error("recording when the job begins", "job", j.Key, "error", err)
	}
}

// oldestRecord is the earliest time the state records: a schedule's
// first sighting or a job's creation.
func oldestRecord(st *stateFile) time.Time {
	var o time.Time
	take := func(t time.Time) {
		if !t.IsZero() && (o.IsZero() || t.Before(o)) {
			o = t
		}
	}
	for _, ss := range st.Schedules {
		take(ss.FirstSeen)
	}
	for _, js := range st.Jobs {
		take(js.Since)
	}
	return o
}

// latestRecord is the latest time the state records (first sightings,
// creations, last due times, runs' ends).
func latestRecord(st *stateFile) time.Time {
	var l time.Time
	take := func(t time.Time) {
		if t.After(l) {
			l = t
		}
	}
	for _, ss := range st.Schedules {
		take(ss.FirstSeen)
	}
	for _, js := range st.Jobs {
		take(js.Since)
		if js.LastDue != nil {
			take(*js.LastDue)
		}
		if js.LastRun != nil {
			take(js.LastRun.End)
		}
	}
	return l
}

// missedGrace is how late a due time may be seen, after the Scheduler
// started, and still count as on time (a timer's accuracy, a slow start).
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

// holdCatchUp reports whether a run due at due waits (it was missed
// before the Scheduler started and its delay has not passed), and
// remembers when it runs, for nextWake.
func (s *Scheduler) holdCatchUp(j Job, js *jobState, due, now time.Time) bool {
	if j.Key == s.Only && js.LastDue == nil && js.Runs == 0 {
		// The first firing of an exported timer (see since): the timer
		// chose when, and a new job was not missed while hab-gc was
		// down. Waiting here would hold the timer's oneshot service
		// for up to CatchUpSpread.
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
		at = c.At // set by an earlier start: a restart does not put it off
	} else if !s.ReadOnly && now.Before(at) {
		cu := &catchUp{Due: due, At: at}
		js.CatchUp = cu
		s.remember(j.Key, *js)
		s.umu.Unlock()
		err := s.update(func(st *stateFile) bool {
			if p := st.Jobs[j.Key]; p != nil {
				p.CatchUp = cu
				return true
			}
			return false
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

// pendingCatchUp returns when the earliest missed run that waits its
// catch-up delay runs (zero when none waits).
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

// absence is a job whose store could not be opened: why, and when it is
// tried again.
type absence struct {
	why   string
	next  time.Time
	delay time.Duration
}

// maxStoreBackoff bounds the wait between tries of a job whose store
// cannot be opened (it is tried at once when the store exists again).
const maxStoreBackoff = 15 * time.Minute

// storeGone handles a due job whose store cannot be opened (unmounted,
// moved, not there yet): it stays due and is tried again after a minute,
// then after twice as long each time up to maxStoreBackoff, or at the first
// tick at which the store exists again.
func (s *Scheduler) storeGone(j Job, out RunOutcome, log *slog.Logger, err error) RunOutcome {
	why := err.Error()
	out.Err = err
	if s.NotRun != nil {
		s.NotRun(j, err)
	}
	now := s.now()
	s.umu.Lock()
	a := s.absent[j.Key]
	first := a == nil || a.why != why
	if first {
		a = &absence{why: why, delay: time.Minute}
		if s.absent == nil {
			s.absent = map[string]*absence{}
		}
		s.absent[j.Key] = a
	} else {
		a.delay = min(2*a.delay, maxStoreBackoff)
	}
	a.next = now.Add(a.delay)
	s.umu.Unlock()
	if !first {
		log.Debug("job not run: its store still cannot be opened", "error", why, "retry_in", a.delay.String())
		return out
	}
	log.Error("job not run: its store cannot be opened; it stays due, and is tried again at growing intervals (up to 15m) and as soon as the store exists (not logged again while the reason is the same)", "error", why)
	s.update(func(st *stateFile) bool {
		if js := st.Jobs[j.Key]; js != nil {
			js.LastError = fmt.Sprintf("%s: %s", now.UTC().Format(time.RFC3339), why)
			return true
		}
		return false
	})
	return out
}

// backingOff reports whether a due job whose store could not be opened
// waits for its next try (storeGone): the store does not exist yet, and
// its retry time has not come.
func (s *Scheduler) backingOff(j Job, now time.Time) bool {
	s.umu.Lock()
	a := s.absent[j.Key]
	wait := a != nil && now.Before(a.next)
	s.umu.Unlock()
	if !wait {
		return false
	}
	_, err := os.Stat(j.Store)
	return err != nil
}

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
func (s *Scheduler) memJob(key string) (jobState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.view == nil || s.view.Jobs[key] == nil {
		return jobState{}, false
	}
	return *s.view.Jobs[key], true
}

// remember records a job's state as this scheduler wrote or read it.
func (s *Scheduler) remember(key string, js jobState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.view != nil {
		s.view.Jobs[key] = &js
	}
}

// restore puts back into the state file the jobs (and their schedules) it
// no longer holds although this scheduler runs them: the file was deleted
// or replaced, or another hab-gc rewrote it.
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
