package schedule_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestRandomTimesAvoidDaylightSaving: a randomized time
// never falls in a wall-clock hour that the job's time zone skips or
// repeats, so no interval is lost: in Europe/Berlin in 2027 a weekly job
// at "2 2 * * 0" ran 03-21 then 04-04 (03-28 has no 02:02), "19 2 28 * *"
// had no March and "39 2 28 3 *" no 2027 at all. For many jobs of each
// randomized kind, every interval of 2027 and 2028 is whole.
func TestRandomTimesAvoidDaylightSaving(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	// The cases, as cron read in Berlin, lose what they say.
	for expr, want := range map[string]string{"2 2 * * 0": "03-28", "19 2 28 * *": "03-28", "39 2 28 3 *": "03-28"} {
		c, _ := schedule.NewCron(expr, berlin)
		if n := c.Next(time.Date(2027, 3, 27, 0, 0, 0, 0, berlin)); n.In(berlin).Format("01-02") == want && n.Year() == 2027 {
			t.Fatalf("%s runs on %s 2027: the gap is not where the test expects it", expr, want)
		}
	}
	for _, loc := range []*time.Location{berlin, ny} {
		for _, spec := range []string{"@daily-random", "@weekly-random", "@monthly-random", "@yearly-random", "@daily-random(01:00-04:00)", "@weekly-random(sat-sun 00:30-03:30)",
			// In New York only 02:xx is skipped; 01:xx is
			// repeated, and runs once (at the first): a window of the two
			// keeps 01:xx.
			"@weekly-random(sat-sun 01:00-03:00)", "@daily-random(01:00-03:00)"} {
			sp, err := schedule.ParseSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i := 0; i < 150; i++ {
				in := schedule.HashInput{Store: fmt.Sprintf("/s/%d/hab/pkgs", i), Type: schedule.Prune, Spec: sp.Canonical, Machine: "m", Zone: loc}
				expr := schedule.Resolve(sp, in)
				c, err := schedule.NewCron(expr, loc)
				if err != nil {
					t.Fatal(err)
				}
				if why := wholeIntervals(c, spec, loc); why != "" {
					if bad++; bad <= 3 {
						t.Errorf("%s %s in %s: %s", spec, expr, loc, why)
					}
				}
			}
			if bad > 3 {
				t.Errorf("%s in %s: %d of 150 jobs lose an interval", spec, loc, bad)
			}
		}
	}
}

// wholeIntervals walks 2027-2028 and says what interval a job loses, if
// any, or runs twice.
func wholeIntervals(c *schedule.Cron, spec string, loc *time.Location) string {
	from := time.Date(2027, 1, 1, 0, 0, 0, 0, loc).Add(-time.Second)
	to := time.Date(2029, 1, 1, 0, 0, 0, 0, loc)
	var runs []time.Time
	for n := c.Next(from); !n.IsZero() && n.Before(to); n = c.Next(n) {
		runs = append(runs, n)
	}
	seen := map[string]int{}
	for i, r := range runs {
		l := r.In(loc)
		var k string
		switch {
		case spec[:6] == "@daily":
			k = l.Format("2006-01-02")
		case spec[:7] == "@weekly":
			if i > 0 {
				if gap := r.Sub(runs[i-1]); gap < 7*24*time.Hour-time.Hour || gap > 7*24*time.Hour+time.Hour {
					return fmt.Sprintf("%v between the runs of %s and %s", gap, runs[i-1].In(loc), l)
				}
			}
			continue
		case spec[:8] == "@monthly":
			k = l.Format("2006-01")
		default:
			k = l.Format("2006")
		}
		if seen[k]++; seen[k] > 1 {
			return "runs twice in " + k
		}
	}
	want := map[string]int{"@d": 731, "@m": 24, "@y": 2}[spec[:2]]
	if spec[:2] == "@w" {
		want = 0
		if len(runs) < 104 {
			return fmt.Sprintf("%d runs", len(runs))
		}
	}
	if len(seen) != want {
		return fmt.Sprintf("runs in %d of the %d periods of 2027-2028", len(seen), want)
	}
	return ""
}

// TestHourlyAcrossDaylightSaving pins what docs/scheduling.md says of
// @hourly-random (a minute of every hour, never drawn again): when clocks go forward its runs stay an hour apart in elapsed
// time (the skipped wall hour is no hour at all); when they go back, the
// repeated hour runs once, at its first occurrence, so two runs are two
// hours apart.
func TestHourlyAcrossDaylightSaving(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	c, err := schedule.NewCron("17 * * * *", berlin)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		from  time.Time
		wantG []time.Duration // gaps between the next runs
	}{
		{"forward", time.Date(2027, 3, 27, 23, 17, 0, 0, time.UTC), []time.Duration{time.Hour, time.Hour, time.Hour}},
		{"back", time.Date(2027, 10, 30, 23, 17, 0, 0, time.UTC), []time.Duration{time.Hour, 2 * time.Hour, time.Hour}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			at := tt.from
			for i, want := range tt.wantG {
				n := c.Next(at)
				if n.Sub(at) != want {
					t.Fatalf("run %d at %s (%s), %s after the one before; want %s", i+1, n.UTC().Format(time.RFC3339), n.In(berlin).Format("15:04 MST"), n.Sub(at), want)
				}
				at = n
			}
		})
	}
}
