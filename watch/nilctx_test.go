package watch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// TestRunRefusesNilContext: Run given a nil context returns an error
// wrapping retention.ErrNilContext before it starts.
func TestRunRefusesNilContext(t *testing.T) {
	t.Parallel()
	b := storetest.New(t)
	var ctx context.Context
	err := watch.Run(ctx, watch.Options{Store: storetest.Open(t, b.Root), Policy: retention.Policy{KeepLatest: 1}})
	if !errors.Is(err, retention.ErrNilContext) {
		t.Errorf("Run(nil, ...): %v, want retention.ErrNilContext", err)
	}
}
