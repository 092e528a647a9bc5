package retention_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// Issue 23 item 8: PlanStore and Apply with a nil or zero store are
// refused with ErrNoStore instead of panicking.
func TestNilStoreRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store *pkgstore.Store
	}{{"nil", nil}, {"zero", &pkgstore.Store{}}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := retention.PlanStore(context.Background(), tc.store, retention.Policy{KeepLatest: 1}, now)
			if !errors.Is(err, pkgstore.ErrNoStore) {
				t.Errorf("PlanStore: err = %v, want ErrNoStore", err)
			}
			var p retention.Plan
			if _, err := p.Apply(context.Background(), tc.store); !errors.Is(err, pkgstore.ErrNoStore) {
				t.Errorf("Apply: err = %v, want ErrNoStore", err)
			}
		})
	}
}
