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

// randomFields returns the cron fields a randomized descriptor draws:
// minute, hour, weekday, day of month, Month.
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
	Raw, Canonical string // as written; case, spaces and synonyms folded
	Random         bool   // its cron expression is drawn from a hash of the job
	window         timeWindow
}

// Zone is the time zone the spec's cron expression is read in, given the
// scheduler's (nil: UTC): loc, but UTC for @hourly-random, whose "once an
// hour" a repeated wall-clock hour would break.
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
// @weekly-random(fri-mon 22:00-02:00). Both ranges may wrap.
type timeWindow struct {
	HasTime           bool
	From, To          int // minutes of the day, [From, To)
	HasDays           bool
	FirstDay, LastDay int // 0 Sunday - 6 Saturday, inclusive
}

func (w timeWindow) minutes() int { return (w.To-w.From+1439)%1440 + 1 }

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
// range and an optional HH:MM-HH:MM.
func parseWindow(s string, weekly bool) (timeWindow, error) {
	var w timeWindow
	items := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
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
		// 0-7 is the whole week, not Sunday alone.
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

func clock(s string, end bool) (int, error) {
	hs, ms, ok := strings.Cut(s, ":")
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if !ok || err1 != nil || err2 != nil || len(ms) != 2 || len(hs) == 0 || len(hs) > 2 || m < 0 || m > 59 || h < 0 || h > 24 || (h == 24 && (m != 0 || !end)) {
		return 0, fmt.Errorf("%q is not a time of day HH:MM", s)
	}
	return h*60 + m, nil
}

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

// hashInput is what a randomized spec's time is derived from: never the
// schedule's name or owner, so that every schedule asking for one job on
// one store gets one time.
type hashInput struct {
	Store   string // canonical store path
	Type    JobType
	Params  string // Params.canonical
	Spec    string // canonical
	Machine string // machines sharing a store path get different times, as with systemd's FixedRandomDelay
	// Zone is not hashed: a time the zone's clocks skip is drawn again.
	Zone *time.Location
}

func (h hashInput) digest() [32]byte {
	in := "hab-gc schedule v1\x00" + h.Store + "\x00" + string(h.Type) + "\x00" + h.Params + "\x00" + h.Spec
	if h.Machine != "" {
		in += "\x00machine\x00" + h.Machine
	}
	return sha256.Sum256([]byte(in))
}

// resolveSpec returns the 5-field cron expression a spec stands for in a
// job: a randomized one drawn from a SHA-256 hash of in, the same on every
// machine and Go version.
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

// drawFields draws each field of fields from 16 bits of d of its own.
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

// avoidSkipped draws again, among the window's other minutes, a time of
// day the zone's clocks skip (a run lost once a year).
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

// changingMinutes marks the wall-clock minutes loc skips at some change
// between 2000 and 2100; nil: none.
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
		// A repeated time (clocks back) runs once, and is not marked:
		// that emptied windows such as 01:00-03:00 in New York.
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
