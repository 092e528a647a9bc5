package schedule

import (
	"time"
)

// setBack is how far a job's last due time may lie ahead of the clock and
// be a clock set back a little (an NTP step, a VM restored): those due
// times ran, and the job waits for the clock.
const setBack = 24 * time.Hour

// clockWrong says why now is obviously wrong, "" when it is not. Records
// ahead of a clock this Scheduler saw go back are its own, made while the
// clock was fast (recoverClock).
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

// holdForClock reports whether the scheduled jobs wait for an obviously
// wrong clock, saying so once, and again when it is right.
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

// recoverClock begins anew at now a job whose anchor lies after now: the
// clock was ahead when it was recorded.
func (s *Scheduler) recoverClock(j Job, a, now time.Time) {
	s.log().Warn("the job's last due time is in the future: the clock was set back; it runs again at its next due time after now",
		"job", j.Key, "last_due", a.UTC().Format(time.RFC3339), "now", now.UTC().Format(time.RFC3339))
	s.rebegin(j.Key, "recording the clock recovery",
		func(js *jobState) bool { return anchor(js).After(now) },
		func(js *jobState) { js.Since, js.LastDue = now, nil })
}

// restamp begins at now a job that never ran and was first seen while the
// clock was obviously wrong (a lost state at a boot in 1970): from its
// 1970 creation a due time that may have run before would run again.
func (s *Scheduler) restamp(j Job, now time.Time) {
	s.log().Warn("the job was first seen while the clock was obviously wrong; it begins now that the clock is right: its next due time runs", "job", j.Key, "now", now.UTC().Format(time.RFC3339))
	s.rebegin(j.Key, "recording when the job begins",
		func(js *jobState) bool { return js.LastDue == nil && js.Since.Before(s.NotBefore) },
		func(js *jobState) { js.Since = now })
}

// rebegin applies set to the job, in memory and in the state, where when
// holds.
func (s *Scheduler) rebegin(key, what string, when func(*jobState) bool, set func(*jobState)) {
	if m, ok := s.memJob(key); ok && when(&m) {
		set(&m)
		s.remember(key, m)
	}
	if s.ReadOnly {
		return
	}
	err := s.update(func(st *stateFile) bool {
		js := st.Jobs[key]
		if js == nil || !when(js) {
			return false
		}
		set(js)
		return true
	})
	if err != nil {
		s.log().Error(what, "job", key, "error", err)
	}
}

// oldestRecord is the earliest first sighting or creation the state holds.
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
