package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Window limits a randomized time: @daily-random(01:00-05:00),
// @weekly-random(mon-fri), @weekly-random(fri-mon 22:00-02:00).
type Window struct {
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
func (w Window) minutes() int { return (w.To-w.From+1439)%1440 + 1 }

// days is the weekday range's length.
func (w Window) days() int { return (w.LastDay-w.FirstDay+7)%7 + 1 }

func (w Window) String() string {
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
func parseWindow(s string, weekly bool) (Window, error) {
	var w Window
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
