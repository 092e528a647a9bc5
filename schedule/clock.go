package schedule

import (
	"time"
)

// setBack is how far a job's last due time may lie ahead of the clock
// and be a clock set back a little (an NTP step, a VM restored): the due
// times up to it ran, and are not run again; the job waits for the clock.
// Further ahead, it ran while the clock was wrong, and is re-anchored at
// now (recoverClock).
const setBack = 24 * time.Hour

// clockWrong says why now is obviously wrong ("" when it is not): before
// NotBefore (the build time), or more than a day (setBack) before the
// oldest record of the state, unless this Scheduler saw the clock go back
// since it started (the records ahead are then its own, made while the
// clock was fast: recoverClock re-anchors them).
func (s *Scheduler) clockWrong(st *State, now time.Time) string {
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

// holdForClock reports whether the scheduled jobs wait because the clock
// is obviously wrong (clockWrong): nothing runs, nothing is re-anchored,
// and it is said once (at WARN), and again when the clock is right. A
// start made while the clock was wrong is then moved to the first right
// time, so a run missed while the machine was down still waits its
// catch-up delay. A clock set back before the start (it was fast) moves
// the start back too: due times after the correction are not "missed".
func (s *Scheduler) holdForClock(st *State, now time.Time) bool {
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
// back. The job is re-anchored at now, so the next due time after now runs
// (the recorded last run is kept).
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
	err := s.update(func(st *State) bool {
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

// restamp begins anew, at now, a job that has never run and was first
// seen while the clock was obviously wrong with nothing in the state to
// stamp it with (a damaged state at a boot at 1970): its 1970 creation
// time would make the latest due time since then due, although it may
// have run before the state was lost. As with a damaged state at any
// start, the next due time after now runs; none runs at once.
func (s *Scheduler) restamp(j Job, now time.Time) {
	s.log().Warn("the job was first seen while the clock was obviously wrong; it begins now that the clock is right: its next due time runs", "job", j.Key, "now", now.UTC().Format(time.RFC3339))
	if m, ok := s.memJob(j.Key); ok && m.LastDue == nil {
		m.Since = now
		s.remember(j.Key, m)
	}
	if s.ReadOnly {
		return
	}
	err := s.update(func(st *State) bool {
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
func oldestRecord(st *State) time.Time {
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
func latestRecord(st *State) time.Time {
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
