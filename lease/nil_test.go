package lease_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/lease"
)

// TestNilLeaseRelease: releasing a nil lease does nothing, as releasing
// one twice does.
func TestNilLeaseRelease(t *testing.T) {
	t.Parallel()
	var l *lease.Lease
	if err := l.Release(); err != nil {
		t.Errorf("Release of a nil lease: %v", err)
	}
}
