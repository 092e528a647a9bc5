package retention_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/retention"
)

// TestApplyOptionsNegative: a negative LockTimeout or
// Settle is "none" only as the named constant (NoLockWait, NoSettle);
// another negative value is refused by Validate and by Apply, which then
// removes nothing.
func TestApplyOptionsNegative(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts retention.ApplyOptions
		ok   bool
	}{
		{"zero", retention.ApplyOptions{}, true},
		{"NoLockWait", retention.ApplyOptions{LockTimeout: retention.NoLockWait, Settle: retention.NoSettle}, true},
		{"lock-timeout -5s", retention.ApplyOptions{LockTimeout: -5 * time.Second, Settle: retention.NoSettle}, false},
		{"settle -1ms", retention.ApplyOptions{Settle: -time.Millisecond}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.opts.Validate(); (err == nil) != tc.ok || (err != nil && !errors.Is(err, retention.ErrInvalidOptions)) {
				t.Fatalf("Validate: %v, want ok %v", err, tc.ok)
			}
			if tc.ok {
				return
			}
			b := base(t)
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			s := storetest.Open(t, b.Root)
			res, err := p.Apply(context.Background(), s, tc.opts)
			if !errors.Is(err, retention.ErrInvalidOptions) || res.Applied() || res.Removed != 0 {
				t.Fatalf("Apply: %v, applied %v, removed %d; want refused", err, res.Applied(), res.Removed)
			}
			if !exists(b.PkgPath(redis1)) {
				t.Fatal("a release was removed")
			}
		})
	}
}
