package schedule_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// A prune job made in code without a count is refused,
// as retention.Policy{} is and as a definition file without keep_latest
// is; keeping none by count is said with retention.KeepNone.
func TestZeroParamsRefused(t *testing.T) {
	root := hostStore(t).Root
	spec, err := schedule.ParseSpec("@daily-random")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		params schedule.Params
		ok     bool
	}{
		{"zero", schedule.Params{}, false},
		{"min age only", schedule.Params{MinAge: time.Hour}, false},
		{"keep none", schedule.Params{KeepLatest: retention.KeepNone}, true},
		{"keep two", schedule.Params{KeepLatest: 2}, true},
		{"below keep none", schedule.Params{KeepLatest: -2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schedule.NewDefinition("d", root, time.Time{}, schedule.JobDef{Type: schedule.Prune, Spec: spec, Params: tc.params})
			if tc.ok != (err == nil) {
				t.Fatalf("NewDefinition(%+v) err = %v, want ok %v", tc.params, err, tc.ok)
			}
			if tc.name == "zero" && !errors.Is(err, retention.ErrEmptyPolicy) {
				t.Errorf("zero params: err = %v, want ErrEmptyPolicy", err)
			}
			if _, perr := tc.params.Policy(); tc.ok != (perr == nil) {
				t.Errorf("Policy() err = %v, want ok %v", perr, tc.ok)
			}
		})
	}
}

// Params.MinAge is the policy's min age as written (0 the
// default, NoMinAge none), and two params with the same policy are one job.
func TestParamsMinAge(t *testing.T) {
	for _, tc := range []struct {
		in, want time.Duration
	}{{3 * time.Hour, 3 * time.Hour}, {retention.NoMinAge, retention.NoMinAge}, {0, 0}} {
		pol, err := schedule.Params{KeepLatest: 1, MinAge: tc.in}.Policy()
		if err != nil {
			t.Fatal(err)
		}
		if pol.MinAge != tc.want {
			t.Errorf("Params{MinAge: %v}.Policy().MinAge = %v, want %v", tc.in, pol.MinAge, tc.want)
		}
	}
}
