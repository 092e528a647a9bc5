package retention_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/retention"
)

// TestApplyPhases: Apply names each phase as it starts, with how many
// releases it handles, and counts the releases hidden and deleted, so that
// a display has no blank gap between the scan and the deletions.
func TestApplyPhases(t *testing.T) {
	b := base(t)
	var got []string
	opts := retention.ApplyOptions{Settle: time.Millisecond, OnPhase: func(e retention.PhaseEvent) {
		got = append(got, fmt.Sprintf("%s %d/%d", e.Phase, e.Done, e.Total))
	}}
	_, res := planAndApply(t, b.Root, retention.Policy{KeepLatest: 1}, opts)
	if res.Removed != 4 {
		t.Fatalf("removed %d, want 4", res.Removed)
	}
	want := []string{
		"locking 0/0", "rescanning 0/0",
		"hiding 0/4", "hiding 1/4", "hiding 2/4", "hiding 3/4", "hiding 4/4",
		"settling 0/0", "re-checking 0/0",
		"deleting 0/4", "deleting 1/4", "deleting 2/4", "deleting 3/4", "deleting 4/4",
	}
	if !slices.Equal(got, want) {
		t.Errorf("phases:\n%q\nwant\n%q", got, want)
	}
}
