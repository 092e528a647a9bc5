package schedule_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

var elapseRE = regexp.MustCompile(`(?:Next elapse|Iter\. #\d+): \w+ (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC`)

// systemdElapses asks systemd-analyze when a calendar spec elapses, n
// times after base.
func systemdElapses(t *testing.T, cal string, base time.Time, n int) []time.Time {
	t.Helper()
	cmd := exec.Command("systemd-analyze", "calendar", "--base-time="+base.UTC().Format("2006-01-02 15:04:05")+" UTC",
		"--iterations="+strconv.Itoa(n), cal)
	cmd.Env = []string{"TZ=UTC", "LC_ALL=C"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("systemd-analyze calendar %q: %v", cal, err)
	}
	var ts []time.Time
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := elapseRE.FindStringSubmatch(sc.Text()); m != nil {
			tm, err := time.Parse("2006-01-02 15:04:05", m[1])
			if err != nil {
				t.Fatal(err)
			}
			ts = append(ts, tm)
		}
	}
	return ts
}

// dstChanges lists the instants in [from, to) at which loc's UTC offset
// changes.
func dstChanges(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	_, prev := from.In(loc).Zone()
	for t := from; t.Before(to); t = t.Add(15 * time.Minute) {
		if _, off := t.In(loc).Zone(); off != prev {
			out = append(out, t)
			prev = off
		}
	}
	return out
}

// TestDaemonAgreesWithSystemd: in UTC for every day of 2026 and 2027, and
// in Europe/Berlin and America/New_York for the days and weeks around each
// of their DST changes in those years (where the zone's rules matter; in
// a zone systemd-analyze takes about 4 ms an iteration, so every day of
// two years took 40 s a zone), the daemon's due times are the instants
// the exported OnCalendar fires at: each firing covers exactly one due
// time, and the --once it starts runs it.
func TestDaemonAgreesWithSystemd(t *testing.T) {
	testtool.Need(t, "systemd-analyze", "systemd") // systemd's own calendar
	base := time.Date(2025, 12, 31, 12, 0, 0, 0, time.UTC)
	end := time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, zone := range []string{"UTC", "Europe/Berlin", "America/New_York"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		check := func(t *testing.T, expr string, from time.Time, n int) {
			cal, err := schedule.OnCalendar(expr, loc)
			if err != nil {
				t.Fatal(err)
			}
			c, err := schedule.NewCron(expr, loc)
			if err != nil {
				t.Fatal(err)
			}
			want := systemdElapses(t, cal, from, n)
			got := from
			for i, w := range want {
				if w.After(end) {
					break
				}
				got = c.Next(got)
				if !got.Equal(w) {
					t.Fatalf("%s (%s): firing %d: systemd at %s, the daemon's due time %s", expr, cal, i+1, w.Format(time.RFC3339), got.UTC().Format(time.RFC3339))
				}
			}
		}
		t.Run(zone, func(t *testing.T) {
			t.Parallel()
			changes := dstChanges(loc, base, end)
			if zone != "UTC" && len(changes) != 4 {
				t.Fatalf("%s changes its offset %d times in 2026 and 2027, want 4", zone, len(changes))
			}
			for _, expr := range []string{"30 2 * * *", "0 2 * * *", "0 3 * * *", "30 1 * * *", "59 2 * * *", "0 0 * * *", "30 2 * * 0", "15 1 * * 0"} {
				if zone == "UTC" {
					check(t, expr, base, 740)
					continue
				}
				// Five days before each change to five after (daily), or
				// to ten weeks after (weekly).
				for _, ch := range changes {
					check(t, expr, ch.Add(-5*24*time.Hour), 10)
				}
			}
			// Hourly, around each change.
			for _, ch := range changes {
				check(t, "15 * * * *", ch.Add(-6*time.Hour), 14)
				check(t, "*/20 * * * *", ch.Add(-3*time.Hour), 20)
			}
		})
	}
}

// TestHourlyRandomTimerEveryHour: the exported timer of
// an @hourly-random job in Europe/Berlin fires once in every elapsed hour
// across both changes (its OnCalendar is read in UTC, Spec.Zone), at the
// daemon's due times.
func TestHourlyRandomTimerEveryHour(t *testing.T) {
	testtool.Need(t, "systemd-analyze", "systemd")
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := schedule.ParseSpec("@hourly-random")
	if err != nil {
		t.Fatal(err)
	}
	j := schedule.Job{Key: "k", Type: schedule.Check, Store: "/hab/pkgs", FSRoot: "/", Spec: spec, Cron: "24 * * * *", Owner: "o", Members: []string{"o"}}
	units, err := schedule.SystemdUnits(j, schedule.Invocation{Exe: "/bin/hab-gc"}, berlin)
	if err != nil {
		t.Fatal(err)
	}
	cal := ""
	for _, u := range units {
		if m := regexp.MustCompile(`(?m)^OnCalendar=(.*)$`).FindStringSubmatch(u.Content); m != nil {
			cal = m[1]
		}
	}
	c, err := schedule.NewCron(j.Cron, spec.Zone(berlin))
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []time.Time{time.Date(2027, 3, 27, 22, 0, 0, 0, time.UTC), time.Date(2027, 10, 30, 22, 0, 0, 0, time.UTC)} {
		fired := systemdElapses(t, cal, from, 8)
		if len(fired) != 8 {
			t.Fatalf("%s: systemd-analyze gave %d times", cal, len(fired))
		}
		due := from
		for i, f := range fired {
			if due = c.Next(due); !f.Equal(due) {
				t.Fatalf("%s: firing %d at %s, the daemon's due time %s", cal, i+1, f.Format(time.RFC3339), due.UTC().Format(time.RFC3339))
			}
			if i > 0 && f.Sub(fired[i-1]) != time.Hour {
				t.Fatalf("%s: firing %d at %s, %s after the one before", cal, i+1, f.Format(time.RFC3339), f.Sub(fired[i-1]))
			}
		}
	}
}
