package schedule_test

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestNextRuns: the expression is Resolve's, the times are the next ones
// after from in the zone the cron is read in, as many as asked.
func TestNextRuns(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skipf("no zone data: %v", err)
	}
	from := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, spec string
		zone       *time.Location
		count      int
		want       []time.Time
	}{
		{"daily UTC", "@daily", nil, 3, []time.Time{
			time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 3, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 4, 0, 0, 0, 0, time.UTC)}},
		{"daily Berlin", "@daily", berlin, 1, []time.Time{time.Date(2026, 6, 1, 22, 0, 0, 0, time.UTC)}},
		{"cron", "30 4 * * 1", nil, 2, []time.Time{
			time.Date(2026, 6, 8, 4, 30, 0, 0, time.UTC), time.Date(2026, 6, 15, 4, 30, 0, 0, time.UTC)}},
		{"none asked", "@daily", nil, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := schedule.ParseSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			in := schedule.HashInput{Store: "/hab/pkgs", Type: schedule.Check, Spec: spec.Canonical, Machine: "m", Zone: tt.zone}
			expr, times, err := schedule.NextRuns(spec, in, from, tt.count)
			if err != nil {
				t.Fatal(err)
			}
			if want := schedule.Resolve(spec, in); expr != want {
				t.Errorf("expression %q, want Resolve's %q", expr, want)
			}
			if len(times) != len(tt.want) {
				t.Fatalf("times %v, want %v", times, tt.want)
			}
			for i := range times {
				if !times[i].Equal(tt.want[i]) {
					t.Errorf("time %d: %v, want %v", i, times[i], tt.want[i])
				}
			}
		})
	}
}

// TestNextRunsRandomized: a randomized spec's times follow its resolved
// expression, which depends on the machine.
func TestNextRunsRandomized(t *testing.T) {
	spec, err := schedule.ParseSpec("@daily-random")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	exprs := map[string]bool{}
	for _, m := range []string{"a", "b", "c", "d"} {
		in := schedule.HashInput{Store: "/hab/pkgs", Type: schedule.Prune, Spec: spec.Canonical, Machine: m}
		expr, times, err := schedule.NextRuns(spec, in, from, 2)
		if err != nil || len(times) != 2 || times[1].Sub(times[0]) != 24*time.Hour {
			t.Fatalf("machine %s: %q %v %v; want two times a day apart", m, expr, times, err)
		}
		exprs[expr] = true
	}
	if len(exprs) < 2 {
		t.Errorf("four machines drew one expression %v", exprs)
	}
}
