package schedule

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// HashInput is what a randomized spec's time is derived from. The
// schedule's name and owner are not part of it: every schedule asking for
// the same job on the same store gets the same time.
type HashInput struct {
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

func (h HashInput) digest() [32]byte {
	in := "hab-gc schedule v1\x00" + h.Store + "\x00" + string(h.Type) + "\x00" + h.Params + "\x00" + h.Spec
	if h.Machine != "" {
		in += "\x00machine\x00" + h.Machine
	}
	return sha256.Sum256([]byte(in))
}

// Resolve returns the concrete 5-field cron expression a spec stands for
// in a job. An explicit spec resolves to itself (descriptors expanded by
// the cron parser's rules); a randomized one to a time drawn from a
// SHA-256 hash of in, each field from its own 16 bits: minute 0-59, hour
// 0-23, weekday 0-6, day of month 1-28, month 1-12. The same inputs give
// the same expression on every machine and Go version.
func Resolve(spec Spec, in HashInput) string {
	if !spec.Random {
		return expandDescriptor(spec.Canonical)
	}
	d := in.digest()
	base, _, _ := strings.Cut(spec.Canonical, "(")
	fields, _ := randomFields(base)
	min, hour, dom, mon, dow := drawFields(d, fields)
	w := spec.Window
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

// avoidSkipped moves a drawn time of day the zone's clocks skip (02:00-03:00
// in Europe and the US in spring), which would lose a run once a year: it
// is drawn again among the window's other minutes, from bits of its own
// (every other time stays where it was).
func avoidSkipped(d [32]byte, in HashInput, w Window, min, hour string) (string, string) {
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
		// such as 01:00-03:00 in New York (issue 32 item 6).
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
