package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// ErrBadSpec is wrapped by errors about schedule specs.
var ErrBadSpec = errors.New("invalid schedule")

// randomFields returns, for a randomized descriptor (canonical spelling),
// the cron fields its hash fills in (minute, hour, weekday, day of month,
// Month); the others are "*".
func randomFields(canonical string) (string, bool) {
	switch canonical {
	case "@hourly-random":
		return "m", true
	case "@daily-random":
		return "mh", true
	case "@weekly-random":
		return "mhw", true
	case "@monthly-random":
		return "mhd", true
	case "@yearly-random":
		return "mhdM", true
	}
	return "", false
}

// Spec is a parsed schedule: an explicit cron expression (5 fields or a
// descriptor such as @daily) or a randomized descriptor such as
// @daily-random.
type Spec struct {
	// Raw is the spec as written; Canonical its normal form
	// (@annually-random is @yearly-random, case and spaces folded).
	Raw, Canonical string
	// Random is set for randomized specs, whose cron expression is derived
	// from a hash of the job (see Resolve).
	Random bool
	// Window limits a randomized spec's time (and weekday).
	Window Window
}

// Zone is the time zone the spec's cron expression is read in, given the
// scheduler's (nil: UTC): loc, except for @hourly-random, read in UTC. It
// draws only a minute and means "once an hour": read on a wall clock with
// daylight saving, the hour repeated when clocks go back would run once
// (two runs two hours apart, an interval lost); in UTC every elapsed hour
// has its run. The daemon, `schedule next` and exported timers all use it.
func (s Spec) Zone(loc *time.Location) *time.Location {
	if loc == nil || s.Random && s.Canonical == "@hourly-random" {
		return time.UTC
	}
	return loc
}

// ParseSpec parses a schedule spec.
func ParseSpec(s string) (Spec, error) {
	c := strings.Join(strings.Fields(strings.ToLower(s)), " ")
	if c == "@annually-random" {
		c = "@yearly-random"
	}
	if base, inner, ok := strings.Cut(c, "("); ok && strings.HasPrefix(c, "@") {
		base = strings.TrimSpace(base)
		if base == "@annually-random" {
			base = "@yearly-random"
		}
		fields, random := randomFields(base)
		if !random {
			return Spec{}, fmt.Errorf("%w %q: only randomized descriptors take a window, e.g. @daily-random(01:00-05:00)", ErrBadSpec, s)
		}
		inner, ok = strings.CutSuffix(strings.TrimSpace(inner), ")")
		if !ok || strings.ContainsAny(inner, "()") {
			return Spec{}, fmt.Errorf("%w %q: a window is written in one pair of parentheses: @daily-random(01:00-05:00)", ErrBadSpec, s)
		}
		if !strings.Contains(fields, "h") {
			return Spec{}, fmt.Errorf("%w %q: @hourly-random takes no window", ErrBadSpec, s)
		}
		w, err := parseWindow(inner, base == "@weekly-random")
		if err != nil {
			return Spec{}, fmt.Errorf("%w %q: %v", ErrBadSpec, s, err)
		}
		if !w.HasTime && !w.HasDays {
			// A window of the whole day and week is no window: one job
			// with the spec written without it.
			return Spec{Raw: s, Canonical: base, Random: true}, nil
		}
		return Spec{Raw: s, Canonical: base + "(" + w.String() + ")", Random: true, Window: w}, nil
	}
	if _, ok := randomFields(c); ok {
		return Spec{Raw: s, Canonical: c, Random: true}, nil
	}
	if strings.HasSuffix(c, "-random") {
		return Spec{}, fmt.Errorf("%w %q: unknown randomized descriptor (use @hourly-random, @daily-random, @weekly-random, @monthly-random or @yearly-random)", ErrBadSpec, s)
	}
	if strings.HasPrefix(c, "@every") {
		return Spec{}, fmt.Errorf("%w %q: @every is not a calendar schedule; use a cron expression", ErrBadSpec, s)
	}
	if _, err := parseCron(c); err != nil {
		return Spec{}, fmt.Errorf("%w %q: %v", ErrBadSpec, s, err)
	}
	return Spec{Raw: s, Canonical: c}, nil
}

func parseCron(expr string) (*cron.SpecSchedule, error) {
	sched, err := cron.ParseStandard(expr)
	if err != nil {
		return nil, err
	}
	ss, ok := sched.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("not a calendar schedule")
	}
	return ss, nil
}

func expandDescriptor(c string) string {
	switch c {
	case "@yearly", "@annually":
		return "0 0 1 1 *"
	case "@monthly":
		return "0 0 1 * *"
	case "@weekly":
		return "0 0 * * 0"
	case "@daily", "@midnight":
		return "0 0 * * *"
	case "@hourly":
		return "0 * * * *"
	}
	return c
}
