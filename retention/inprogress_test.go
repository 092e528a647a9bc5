package retention_test

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/retention"
)

// TestInProgressAge: 0 is the default minimum age, NoMinAge none, a
// positive age itself.
func TestInProgressAge(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		0:                  retention.DefaultMinAge,
		retention.NoMinAge: 0,
		10 * time.Minute:   10 * time.Minute,
		3 * time.Hour:      3 * time.Hour,
	} {
		if got := retention.InProgressAge(in); got != want {
			t.Errorf("InProgressAge(%v) = %v, want %v", in, got, want)
		}
	}
}
