package main

import (
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// logNothingDue is daemon --once's word when no job ran: nothing was due,
// and when each job (only the --job one, when given) is next due, so that a
// timer that fired early or a --job not yet due is not silent.
func logNothingDue(s *schedule.Scheduler, outs []schedule.RunOutcome) {
	if ran(outs) > 0 {
		return
	}
	for _, o := range outs {
		if o.Failed() {
			return // said by the failure
		}
	}
	sts, err := s.Status()
	if err != nil {
		s.Logger.Warn("nothing was due; when the jobs are next due could not be read", "error", err)
		return
	}
	if len(outs) == 0 {
		s.Logger.Info("nothing was due", "jobs", len(sts))
	}
	for _, o := range outs {
		s.Logger.Info("due but not run", "job", o.Job.Key, "why", o.Status.String())
	}
	for _, st := range sts {
		if s.Only != "" && st.Key != s.Only {
			continue
		}
		next := "unknown"
		if !st.Next.IsZero() {
			next = st.Next.UTC().Format(time.RFC3339)
		}
		s.Logger.Info("next due", "job", st.Key, "type", string(st.Type), "next", next)
	}
}
