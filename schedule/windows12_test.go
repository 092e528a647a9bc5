package schedule_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestEquivalentWindows: @weekly-random(0-7) is the
// whole week (7 is Sunday at a range's end), (00:00-24:00) the whole day
// (24:00 is an end), and windows that cover everything are the spec
// without a window: one canonical spelling, so their schedules share one
// job.
func TestEquivalentWindows(t *testing.T) {
	groups := [][]string{
		{"@weekly-random", "@weekly-random(sun-sat)", "@weekly-random(mon-sun)", "@weekly-random(0-7)", "@weekly-random(0-6)", "@weekly-random(00:00-24:00)", "@weekly-random(1-7 00:00-24:00)"},
		{"@daily-random", "@daily-random(00:00-24:00)", "@daily-random(0:00 - 24:00)"},
		{"@weekly-random(mon-fri)", "@weekly-random(1-5)"},
	}
	for _, g := range groups {
		var first string
		for i, spec := range g {
			sp, err := schedule.ParseSpec(spec)
			if err != nil {
				t.Errorf("%s: %v", spec, err)
				continue
			}
			if i == 0 {
				first = sp.Canonical
			} else if sp.Canonical != first {
				t.Errorf("%s is %q, %s is %q: not one job", g[0], first, spec, sp.Canonical)
			}
		}
	}
	e := newEnv(t)
	root := e.store()
	for i, spec := range groups[0] {
		e.write(string(rune('a'+i)), prune(root, spec))
	}
	s := e.loaded()
	if j := onlyJob(t, s); len(j.Members) != len(groups[0]) {
		t.Fatalf("members %v", j.Members)
	}
}
