package schedule_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

func resolve(t *testing.T, spec, store string, typ schedule.JobType, params string) string {
	t.Helper()
	s, err := schedule.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return schedule.Resolve(s, schedule.HashInput{Store: store, Type: typ, Params: params, Spec: s.Canonical})
}

// TestResolveGolden pins the resolved time of fixed inputs: any change to
// the hashing moves every fleet's jobs, and must be deliberate.
func TestResolveGolden(t *testing.T) {
	prune := schedule.CanonicalParams(schedule.Params{KeepLatest: 3})
	tests := []struct {
		spec, store string
		typ         schedule.JobType
		params      string
		want        string
	}{
		{"@hourly-random", "/hab/pkgs", schedule.Prune, prune, "51 * * * *"},
		{"@daily-random", "/hab/pkgs", schedule.Prune, prune, "18 4 * * *"},
		{"@daily-random", "/hab/pkgs", schedule.Check, "", "14 9 * * *"},
		{"@weekly-random", "/hab/pkgs", schedule.Check, "", "54 4 * * 0"},
		{"@monthly-random", "/mnt/hab/pkgs", schedule.Prune, prune, "8 15 28 * *"},
		{"@yearly-random", "/hab/pkgs", schedule.Check, "", "56 18 2 12 *"},
		{"@annually-random", "/hab/pkgs", schedule.Check, "", "56 18 2 12 *"},
		{"5 4 * * *", "/hab/pkgs", schedule.Prune, prune, "5 4 * * *"},
		{"@daily", "/hab/pkgs", schedule.Prune, prune, "0 0 * * *"},
	}
	for _, tt := range tests {
		t.Run(tt.spec+" "+string(tt.typ), func(t *testing.T) {
			if got := resolve(t, tt.spec, tt.store, tt.typ, tt.params); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseSpec(t *testing.T) {
	for _, ok := range []string{"@daily-random", "@Weekly-Random", "5 4 * * *", "*/15 * * * 1-5", "@daily", "@annually-random"} {
		if _, err := schedule.ParseSpec(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"@fortnightly-random", "@every 1h", "61 * * * *", "* * *", ""} {
		if _, err := schedule.ParseSpec(bad); !errors.Is(err, schedule.ErrBadSpec) {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}

func field(expr string, i int) string { return strings.Fields(expr)[i] }

func TestRandomSpread(t *testing.T) {
	params := schedule.CanonicalParams(schedule.Params{KeepLatest: 2})
	minutes := map[string]bool{}
	for i := 0; i < 1000; i++ {
		c := resolve(t, "@daily-random", fmt.Sprintf("/srv/store%d/hab/pkgs", i), schedule.Prune, params)
		minutes[field(c, 1)+":"+field(c, 0)] = true
	}
	if len(minutes) < 650 {
		t.Errorf("1,000 stores use %d distinct minutes of the day, want at least 650", len(minutes))
	}
	weekdays := map[string]bool{}
	for i := 0; i < 300; i++ {
		weekdays[field(resolve(t, "@weekly-random", fmt.Sprintf("/s%d", i), schedule.Check, ""), 4)] = true
	}
	if len(weekdays) != 7 {
		t.Errorf("300 stores use weekdays %v, want all 7", weekdays)
	}
	for i := 0; i < 2000; i++ {
		c := resolve(t, "@monthly-random", fmt.Sprintf("/m%d", i), schedule.Check, "")
		var d int
		fmt.Sscan(field(c, 2), &d)
		if d < 1 || d > 28 {
			t.Fatalf("day of month %d out of 1..28 (%s)", d, c)
		}
		y := resolve(t, "@yearly-random", fmt.Sprintf("/y%d", i), schedule.Check, "")
		var m int
		fmt.Sscan(field(y, 3), &m)
		if m < 1 || m > 12 {
			t.Fatalf("month %d out of 1..12", m)
		}
	}
	// Minute and hour are independent: every hour pairs with many minutes.
	perHour := map[string]map[string]bool{}
	for i := 0; i < 5000; i++ {
		c := resolve(t, "@daily-random", fmt.Sprintf("/x%d", i), schedule.Check, "")
		if perHour[field(c, 1)] == nil {
			perHour[field(c, 1)] = map[string]bool{}
		}
		perHour[field(c, 1)][field(c, 0)] = true
	}
	for h, ms := range perHour {
		if len(ms) < 40 {
			t.Errorf("hour %s pairs with only %d minutes", h, len(ms))
		}
	}
}

// TestDaylightSavingRule: systemd's rule (see TestDaemonAgreesWithSystemd
// for the comparison with systemd itself): a wall time in a gap does not
// occur that day; one that occurs twice runs once, at the first.
func TestDaylightSavingRule(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	c, err := schedule.NewCron("30 2 * * *", ny)
	if err != nil {
		t.Fatal(err)
	}
	// 2026-03-08: clocks jump from 02:00 to 03:00; 02:30 does not exist.
	if d := c.Next(time.Date(2026, 3, 7, 12, 0, 0, 0, ny)).In(ny).Format("2006-01-02 15:04"); d != "2026-03-09 02:30" {
		t.Fatalf("next after Mar 7 noon: %s, want 2026-03-09 02:30 (02:30 does not exist on Mar 8)", d)
	}
	// Clocks go back on 2026-11-01: 01:30 happens twice, the job runs once,
	// at the first (EDT).
	c2, _ := schedule.NewCron("30 1 * * *", ny)
	first := c2.Next(time.Date(2026, 10, 31, 12, 0, 0, 0, ny))
	second := c2.Next(first)
	if !first.Equal(time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC)) || second.In(ny).Format("01-02 15:04") != "11-02 01:30" {
		t.Fatalf("fall back: %v then %v", first.UTC(), second.In(ny))
	}
	// From inside the repeated hour, the second 01:30 is not a due time.
	if n := c2.Next(time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)); n.In(ny).Format("01-02 15:04") != "11-02 01:30" {
		t.Fatalf("from the repeated hour: %v", n.In(ny))
	}
	// The default zone is UTC.
	u, _ := schedule.NewCron("30 2 * * *", nil)
	if n := u.Next(time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC)); n.Location() != time.UTC || n.Hour() != 2 {
		t.Fatalf("UTC: %v", n)
	}
}

func TestLastDueCatchesUpOnce(t *testing.T) {
	c, _ := schedule.NewCron("0 * * * *", nil)
	from := time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)
	due, ok := c.LastDue(from, from.Add(72*time.Hour))
	if !ok || !due.Equal(time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("due %v %v", due, ok)
	}
	if _, ok := c.LastDue(from, from.Add(20*time.Minute)); ok {
		t.Fatal("nothing is due within 20 minutes of 00:30")
	}
}

func TestOnCalendar(t *testing.T) {
	tests := []struct{ cron, want string }{
		{"5 4 * * *", "*-*-* 04:05:00 UTC"},
		{"0 3 * * 0", "Sun *-*-* 03:00:00 UTC"},
		{"30 22 17 * *", "*-*-17 22:30:00 UTC"},
		{"7 1 3 11 *", "*-11-03 01:07:00 UTC"},
		{"*/15 * * * 1-5", "Mon..Fri *-*-* *:0/15:00 UTC"},
		{"0 8,20 * * *", "*-*-* 08,20:00:00 UTC"},
		{"@daily", "*-*-* 00:00:00 UTC"},
	}
	for _, tt := range tests {
		got, err := schedule.OnCalendar(tt.cron, nil)
		if err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.cron, got, err, tt.want)
		}
	}
	if got, _ := schedule.OnCalendar("5 4 * * *", time.Local); got != "*-*-* 04:05:00" {
		t.Errorf("local zone: %q", got)
	}
	if berlin, err := time.LoadLocation("Europe/Berlin"); err == nil {
		if got, _ := schedule.OnCalendar("5 4 * * *", berlin); got != "*-*-* 04:05:00 Europe/Berlin" {
			t.Errorf("Berlin: %q", got)
		}
	}
	if _, err := schedule.OnCalendar("0 0 1 * 1", nil); err == nil {
		t.Error("day of month with weekday must be refused")
	}
}
