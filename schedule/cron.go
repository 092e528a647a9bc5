package schedule

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// cronSpec is a cron expression on a zone's wall clock, by systemd's rule,
// so that exported timers agree: a skipped wall time does not run that day;
// a repeated one runs once, at its first occurrence.
type cronSpec struct {
	Expr  string
	sched *cron.SpecSchedule
	loc   *time.Location
}

func newCron(expr string, loc *time.Location) (*cronSpec, error) {
	if loc == nil {
		loc = time.UTC
	}
	ss, err := parseCron(expr)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrBadSpec, expr, err)
	}
	ss.Location = time.UTC
	return &cronSpec{Expr: expr, sched: ss, loc: loc}, nil
}

func (c *cronSpec) wall(t time.Time) time.Time {
	l := t.In(c.loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
}

// instant returns the first instant whose wall clock reads w, false in a
// daylight-saving gap.
func (c *cronSpec) instant(w time.Time) (time.Time, bool) {
	var first time.Time
	for _, d := range []time.Duration{-26 * time.Hour, 0, 26 * time.Hour} {
		_, off := w.Add(d).In(c.loc).Zone()
		if i := w.Add(-time.Duration(off) * time.Second); c.wall(i).Equal(w) && (first.IsZero() || i.Before(first)) {
			first = i
		}
	}
	return first, !first.IsZero()
}

// Next returns the first due instant strictly after t.
func (c *cronSpec) Next(t time.Time) time.Time {
	w := c.wall(t)
	for i := 0; i < 100_000; i++ {
		nw := c.sched.Next(w)
		if nw.IsZero() {
			return time.Time{}
		}
		if inst, ok := c.instant(nw); ok && inst.After(t) {
			return inst
		}
		w = nw
	}
	return time.Time{}
}

// LastDue returns the latest due instant in (after, upTo], searching back
// in windows that double from an hour: an every-minute job after years
// down walks an hour, not millions of minutes.
func (c *cronSpec) LastDue(after, upTo time.Time) (time.Time, bool) {
	if !upTo.After(after) {
		return time.Time{}, false
	}
	for back := time.Hour; ; back *= 2 {
		lo := upTo.Add(-back)
		whole := !lo.After(after) || back > 1<<20*time.Hour
		if whole {
			lo = after
		}
		var last time.Time
		for n := c.Next(lo); !n.IsZero() && !n.After(upTo); n = c.Next(n) {
			last = n
		}
		if !last.IsZero() || whole {
			return last, !last.IsZero()
		}
	}
}

// Prev returns the latest due instant at or before t, and whether there
// is one within the last ten years.
func (c *cronSpec) Prev(t time.Time) (time.Time, bool) {
	for _, back := range []time.Duration{time.Hour, 25 * time.Hour, 32 * 24 * time.Hour, 367 * 24 * time.Hour, 3660 * 24 * time.Hour} {
		if d, ok := c.LastDue(t.Add(-back), t); ok {
			return d, true
		}
	}
	return time.Time{}, false
}

// NextRuns is what `hab-gc schedule next` shows: the cron expression spec
// resolves to for a job on the store of an FS root (or of its hab/pkgs),
// and the next count times it fires.
func (s *Scheduler) NextRuns(spec Spec, store string, typ JobType, p Params, count int) (string, []time.Time, error) {
	root := storeFSRoot(store)
	canon, err := canonicalStore(root)
	if err != nil {
		return "", nil, err
	}
	state := s.StatePath
	if state == "" {
		state = statePathAt(root)
	}
	machine, err := stateMachineID(root, s.Machine, state)
	if err != nil {
		return "", nil, err
	}
	in := hashInput{Store: canon, Type: typ, Spec: spec.Canonical, Machine: machine, Zone: s.Location}
	if typ == Prune {
		in.Params = p.canonical()
	}
	return nextRuns(spec, in, s.now(), count)
}

func nextRuns(spec Spec, in hashInput, from time.Time, count int) (string, []time.Time, error) {
	expr := resolveSpec(spec, in)
	cr, err := newCron(expr, spec.Zone(in.Zone))
	if err != nil {
		return expr, nil, err
	}
	var times []time.Time
	for t, i := from, 0; i < count; i++ {
		if t = cr.Next(t); t.IsZero() {
			break
		}
		times = append(times, t)
	}
	return expr, times, nil
}
