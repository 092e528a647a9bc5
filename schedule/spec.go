package schedule

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
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
	window timeWindow // limits a randomized spec's time (and weekday)
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
		return Spec{Raw: s, Canonical: base + "(" + w.String() + ")", Random: true, window: w}, nil
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

// timeWindow limits a randomized time: @daily-random(01:00-05:00),
// @weekly-random(mon-fri), @weekly-random(fri-mon 22:00-02:00).
type timeWindow struct {
	// HasTime: the time of day is in [From, To), minutes of the day; To
	// at or before From wraps past midnight.
	HasTime  bool
	From, To int
	// HasDays: the weekday is in FirstDay..LastDay (0 Sunday - 6
	// Saturday), wrapping past Saturday when LastDay < FirstDay.
	HasDays           bool
	FirstDay, LastDay int
}

// minutes is the time window's length in minutes.
func (w timeWindow) minutes() int { return (w.To-w.From+1439)%1440 + 1 }

// days is the weekday range's length.
func (w timeWindow) days() int { return (w.LastDay-w.FirstDay+7)%7 + 1 }

func (w timeWindow) String() string {
	var parts []string
	if w.HasDays {
		parts = append(parts, dayNames[w.FirstDay]+"-"+dayNames[w.LastDay])
	}
	if w.HasTime {
		parts = append(parts, fmt.Sprintf("%02d:%02d-%02d:%02d", w.From/60, w.From%60, w.To/60, w.To%60))
	}
	return strings.Join(parts, " ")
}

var dayNames = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// parseWindow parses the inside of @X-random(...): an optional weekday
// range (names or 0-7) and an optional HH:MM-HH:MM, separated by blanks
// or a comma.
func parseWindow(s string, weekly bool) (timeWindow, error) {
	var w timeWindow
	items := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	// Allow blanks around the dash: "01:00 - 05:00".
	joined := strings.Join(items, " ")
	joined = strings.ReplaceAll(joined, " - ", "-")
	joined = strings.ReplaceAll(strings.ReplaceAll(joined, " -", "-"), "- ", "-")
	items = strings.Fields(joined)
	if len(items) == 0 {
		return w, fmt.Errorf("empty window")
	}
	seenTime, seenDays := false, false
	for _, it := range items {
		a, b, ok := strings.Cut(it, "-")
		if !ok {
			return w, fmt.Errorf("%q is not a range (FROM-TO)", it)
		}
		if strings.Contains(a, ":") || strings.Contains(b, ":") {
			if seenTime {
				return w, fmt.Errorf("two time windows")
			}
			seenTime = true
			from, err1 := clock(a, false)
			to, err2 := clock(b, true)
			if err := errors.Join(err1, err2); err != nil {
				return w, err
			}
			if from == 0 && to == 1440 {
				continue // the whole day: no window
			}
			if from == to%1440 {
				return w, fmt.Errorf("the time window %s is empty", it)
			}
			w.HasTime, w.From, w.To = true, from, to%1440
			continue
		}
		if !weekly {
			return w, fmt.Errorf("a weekday range needs @weekly-random")
		}
		if seenDays || seenTime {
			return w, fmt.Errorf("the weekday range comes first, once")
		}
		seenDays = true
		first, err1 := weekday(a)
		last, err2 := weekday(b)
		if err := errors.Join(err1, err2); err != nil {
			return w, err
		}
		// 7 is Sunday; at a range's end after Sunday (0-7) it is the
		// week's last day, so 0-7 is the whole week, not Sunday alone.
		if first == 0 && b == "7" {
			continue
		}
		w.HasDays, w.FirstDay, w.LastDay = true, first, last
		if w.days() == 7 {
			w.HasDays = false // the whole week: no window
		}
	}
	return w, nil
}

// clock parses HH:MM (24:00 allowed as an end) into minutes of the day.
func clock(s string, end bool) (int, error) {
	hs, ms, ok := strings.Cut(s, ":")
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if !ok || err1 != nil || err2 != nil || len(ms) != 2 || len(hs) == 0 || len(hs) > 2 || m < 0 || m > 59 || h < 0 || h > 24 || (h == 24 && (m != 0 || !end)) {
		return 0, fmt.Errorf("%q is not a time of day HH:MM", s)
	}
	return h*60 + m, nil
}

// weekday parses a day name (sun, monday...) or number (0-7, 7 Sunday).
func weekday(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 7 && len(s) == 1 {
		return n % 7, nil
	}
	if len(s) >= 3 {
		for i, d := range dayNames {
			if strings.HasPrefix(s, d) && strings.HasPrefix(d+[7]string{"day", "day", "sday", "nesday", "rsday", "day", "urday"}[i], s) {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("%q is not a weekday (sun..sat or 0-7)", s)
}

// hashInput is what a randomized spec's time is derived from. The
// schedule's name and owner are not part of it: every schedule asking for
// the same job on the same store gets the same time.
type hashInput struct {
	Store  string // canonical store path
	Type   JobType
	Params string // canonical job parameters (Params.Canonical)
	Spec   string // canonical spec
	// Machine is the machine's identity (its machine-id): machines that
	// share a store path get different times, as systemd's
	// FixedRandomDelay does. Empty: the time depends on the job alone.
	Machine string
	// Zone is the time zone the job's cron is read in (nil: UTC). It is
	// not hashed: a randomized time of day that falls where the zone's
	// clocks skip is drawn again among the times they never skip (a
	// repeated time runs once, at its first occurrence, and may stay).
	Zone *time.Location
}

func (h hashInput) digest() [32]byte {
	in := "hab-gc schedule v1\x00" + h.Store + "\x00" + string(h.Type) + "\x00" + h.Params + "\x00" + h.Spec
	if h.Machine != "" {
		in += "\x00machine\x00" + h.Machine
	}
	return sha256.Sum256([]byte(in))
}

// resolveSpec returns the concrete 5-field cron expression a spec stands for
// in a job. An explicit spec resolves to itself (descriptors expanded by
// the cron parser's rules); a randomized one to a time drawn from a
// SHA-256 hash of in, each field from its own 16 bits: minute 0-59, hour
// 0-23, weekday 0-6, day of month 1-28, month 1-12. The same inputs give
// the same expression on every machine and Go version.
func resolveSpec(spec Spec, in hashInput) string {
	if !spec.Random {
		return expandDescriptor(spec.Canonical)
	}
	d := in.digest()
	base, _, _ := strings.Cut(spec.Canonical, "(")
	fields, _ := randomFields(base)
	min, hour, dom, mon, dow := drawFields(d, fields)
	w := spec.window
	if w.HasTime {
		// 32 bits of their own, so that a window is evenly covered.
		t := (w.From + int(binary.BigEndian.Uint32(d[16:])%uint32(w.minutes()))) % 1440
		min, hour = fmt.Sprint(t%60), fmt.Sprint(t/60)
	}
	if strings.Contains(fields, "h") {
		min, hour = avoidSkipped(d, in, w, min, hour)
	}
	if w.HasDays {
		dow = fmt.Sprint((w.FirstDay + int(binary.BigEndian.Uint32(d[20:])%uint32(w.days()))) % 7)
	}
	return strings.Join([]string{min, hour, dom, mon, dow}, " ")
}

// drawFields draws the cron fields a randomized descriptor fills in
// (randomFields) from the digest d, each from its own 16 bits; the others
// are "*".
func drawFields(d [32]byte, fields string) (min, hour, dom, mon, dow string) {
	field := func(i int, mod, base uint16) string {
		return fmt.Sprint(base + binary.BigEndian.Uint16(d[2*i:])%mod)
	}
	min, hour, dom, mon, dow = "*", "*", "*", "*", "*"
	for _, f := range fields {
		switch f {
		case 'm':
			min = field(0, 60, 0)
		case 'h':
			hour = field(1, 24, 0)
		case 'w':
			dow = field(2, 7, 0)
		case 'd':
			dom = field(3, 28, 1)
		case 'M':
			mon = field(4, 12, 1)
		}
	}
	return min, hour, dom, mon, dow
}

// avoidSkipped moves a drawn time of day the zone's clocks skip
// (02:00-03:00 in Europe and the US in spring), which would lose a run once
// a year: it is drawn again among the window's other minutes, from bits of
// its own (every other time stays where it was).
func avoidSkipped(d [32]byte, in hashInput, w timeWindow, min, hour string) (string, string) {
	ch := changingMinutes(in.Zone)
	var h, m int
	fmt.Sscan(hour, &h)
	fmt.Sscan(min, &m)
	if t := h*60 + m; ch != nil && ch[t] {
		from, n := 0, 1440
		if w.HasTime {
			from, n = w.From, w.minutes()
		}
		var safe []int
		for i := 0; i < n; i++ {
			if c := (from + i) % 1440; !ch[c] {
				safe = append(safe, c)
			}
		}
		if len(safe) > 0 { // else the window is all in the change: as asked
			t = safe[binary.BigEndian.Uint32(d[24:])%uint32(len(safe))]
			min, hour = fmt.Sprint(t%60), fmt.Sprint(t/60)
		}
	}
	return min, hour
}

// changingMinutes marks the minutes of the day (wall clock) that loc's
// clocks skip at some change between 2000 and 2100; nil when they never
// skip any.
func changingMinutes(loc *time.Location) *[1440]bool {
	if loc == nil || loc == time.UTC {
		return nil
	}
	var m [1440]bool
	found := false
	end := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	for t := time.Date(2000, 1, 1, 0, 0, 0, 0, loc); t.Before(end); {
		_, next := t.ZoneBounds()
		if next.IsZero() || !next.After(t) {
			break
		}
		_, before := next.Add(-time.Second).Zone()
		_, after := next.Zone()
		// Clocks forward: the wall times from the old offset's reading
		// of the change to the new one's are skipped. A repeated time
		// (clocks back) is not marked: the cron runs it once, at its
		// first occurrence (Cron), and excluding it too emptied windows
		// such as 01:00-03:00 in New York.
		if after > before {
			w := next.Add(time.Duration(before) * time.Second).UTC()
			start := w.Hour()*60 + w.Minute()
			for i := 0; i < (after-before+59)/60; i++ {
				m[(start+i)%1440], found = true, true
			}
		}
		t = next
	}
	if !found {
		return nil
	}
	return &m
}
