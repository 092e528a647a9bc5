package retention_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// PlanStore and Apply with a nil or zero store are
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

// TestNilArgumentsRefused: nil and zero arguments are
// errors, not panics, and Apply's Result is never nil.
func TestNilArgumentsRefused(t *testing.T) {
	b := storetest.New(t)
	// The target PlanStore scans for (x86_64-windows on Windows).
	b.Add(storetest.Release{Ident: "core/a/1/20200101000000", ModTime: old, Target: pkgstore.DefaultTarget()})
	st := storetest.Open(t, b.Root)
	ctx := context.Background()
	pol := retention.Policy{KeepLatest: 1}
	t.Run("Compute(nil)", func(t *testing.T) {
		if _, err := retention.Compute(nil, pol, nil, now, nil); !errors.Is(err, retention.ErrNoInventory) {
			t.Errorf("err = %v, want ErrNoInventory", err)
		}
	})
	t.Run("a nil and a zero plan's Apply", func(t *testing.T) {
		for name, p := range map[string]*retention.Plan{"nil": nil, "zero": {}} {
			res, err := p.Apply(ctx, st)
			if !errors.Is(err, retention.ErrNoPlan) || res == nil {
				t.Errorf("%s: Apply = %v, %v; want a Result and ErrNoPlan", name, res, err)
			}
		}
	})
	t.Run("Apply on no store", func(t *testing.T) {
		p, err := retention.PlanStore(ctx, st, retention.Policy{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge}, now)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Apply(ctx, nil)
		if !errors.Is(err, pkgstore.ErrNoStore) || res == nil {
			t.Errorf("Apply = %v, %v; want a Result and ErrNoStore", res, err)
		}
	})
	t.Run("a nil root finder", func(t *testing.T) {
		bad := retention.Policy{KeepLatest: 1, RootFinders: []retention.RootFinder{nil}}
		if err := bad.Validate(); !errors.Is(err, retention.ErrInvalidPolicy) {
			t.Errorf("Validate: %v, want ErrInvalidPolicy", err)
		}
		if _, err := bad.FindRoots(ctx, nil); !errors.Is(err, retention.ErrRootsUnknown) {
			t.Errorf("FindRoots: %v, want ErrRootsUnknown", err)
		}
	})
	t.Run("depgraph.New(nil)", func(t *testing.T) {
		if g := depgraph.New(nil); g.Len() != 0 {
			t.Errorf("New(nil) has %d nodes", g.Len())
		}
	})
	t.Run("a refused Apply says what it did not do", func(t *testing.T) {
		p, err := retention.PlanStore(ctx, st, retention.Policy{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge}, now)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Apply(ctx, st, retention.ApplyOptions{}, retention.ApplyOptions{})
		if err == nil || res == nil || res.Applied() || res.NotAttempted != len(p.Removals()) || len(p.Removals()) == 0 {
			t.Errorf("Apply with two options = %+v, %v; want every removal not attempted", res, err)
		}
	})
}
