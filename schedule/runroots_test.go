package schedule_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/runroots"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestDefaultSetupKeepsReleasesInUse: a scheduled prune run through the
// library's defaults keeps what running processes use.
func TestDefaultSetupKeepsReleasesInUse(t *testing.T) {
	for _, typ := range []schedule.JobType{schedule.Prune, schedule.Pressure} {
		pol, _, err := schedule.DefaultSetup("/", schedule.Job{Type: typ, Params: schedule.Params{KeepLatest: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if pol.RuntimeRoots != runroots.ModeOn {
			t.Errorf("%s: DefaultSetup's policy reads processes %s, want %s", typ, pol.RuntimeRoots, runroots.ModeOn)
		}
	}
}
