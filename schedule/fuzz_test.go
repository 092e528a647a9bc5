package schedule

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"@daily-random", "5 4 * * *", "*/15 * * * 1-5", "@annually-random", "@every 1h", "61 * * * *",
		"@daily-random(01:00-05:00)", "@weekly-random(fri-mon 22:00-02:00)", "@weekly-random(1-5)", "@yearly-random(23:59-24:00)",
		"@daily-random(01:00-01:00)", "@weekly-random(mon-fri, 1:00 - 2:30)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(s)
		if err != nil {
			return
		}
		again, err := ParseSpec(spec.Canonical)
		if err != nil || again.Canonical != spec.Canonical {
			t.Fatalf("%q: canonical %q does not parse back to itself: %q %v", s, spec.Canonical, again.Canonical, err)
		}
		expr := resolveSpec(spec, hashInput{Store: "/hab/pkgs", Type: Prune, Spec: spec.Canonical})
		if w := spec.window; w.HasTime || w.HasDays {
			var m, h int
			var dow string
			fmt.Sscanf(expr, "%d %d %s %s %s", &m, &h, new(string), new(string), &dow)
			if off := (h*60 + m - w.From + 1440) % 1440; w.HasTime && off >= w.minutes() {
				t.Fatalf("%q resolved to %q, outside its time window", s, expr)
			}
			if d, err := strconv.Atoi(dow); w.HasDays && (err != nil || (d-w.FirstDay+7)%7 >= w.days()) {
				t.Fatalf("%q resolved to %q, outside its weekdays", s, expr)
			}
		}
		c, err := newCron(expr, nil)
		if err != nil {
			t.Fatalf("%q resolved to %q, which does not parse: %v", s, expr, err)
		}
		from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if n := c.Next(from); !n.IsZero() && !n.After(from) {
			t.Fatalf("Next(%v) = %v", from, n)
		}
	})
}

func FuzzParseDefinition(f *testing.F) {
	f.Add([]byte("fs_root = \"/\"\n[prune]\nschedule = \"@daily-random\"\nkeep_latest = 2\n"))
	f.Add([]byte("fs_root = \"/\"\n[check]\nschedule = \"5 4 * * *\"\n"))
	f.Add([]byte("created = \"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDefinition("f.toml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "f.toml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if d.Name == "" || d.Store == "" || len(d.Jobs) == 0 {
			t.Fatalf("accepted an incomplete definition: %+v", d)
		}
	})
}
