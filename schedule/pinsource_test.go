package schedule_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestDefaultSetupNamesPinSource: a job's excludes carry
// their source, the owner's definition and its table, for the plan's
// reasons and the history.
func TestDefaultSetupNamesPinSource(t *testing.T) {
	tests := []struct {
		typ  schedule.JobType
		want string
	}{
		{schedule.Prune, `schedule "team-a" [prune] exclude`},
		{schedule.Pressure, `schedule "team-a" [pressure] exclude`},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			j := schedule.Job{Type: tt.typ, Owner: "team-a", Params: schedule.Params{KeepLatest: 1, Exclude: []string{"core/a", "core/b@>=1"}}}
			pol, _, err := schedule.DefaultSetup(testtool.TempDir(t), j)
			if err != nil {
				t.Fatal(err)
			}
			if len(pol.Excludes) != 2 {
				t.Fatalf("excludes %+v", pol.Excludes)
			}
			for _, ex := range pol.Excludes {
				if ex.Source != tt.want {
					t.Errorf("%s: source %q, want %q", ex.Raw, ex.Source, tt.want)
				}
			}
		})
	}
}
