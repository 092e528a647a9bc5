package retention_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// Call sites that read well: PlanStore and Apply take their
// options as an optional trailing argument, so the common case is
// PlanStore(ctx, store, policy, now) then Apply(ctx, store), with the
// defaults (the machine's target, the default settle and lock wait). More
// than one options value is refused and changes nothing.
func TestOptionalOptions(t *testing.T) {
	ctx := context.Background()
	b := storetest.New(t)
	for _, id := range []string{redis1, redis2, redis3} {
		b.Add(storetest.Release{Ident: id, Target: pkgstore.DefaultTarget(), ModTime: old})
	}
	store := storetest.Open(t, b.Root)
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}

	if _, err := retention.PlanStore(ctx, store, pol, time.Now(), pkgstore.Options{}, pkgstore.Options{Sizes: true}); err == nil {
		t.Error("PlanStore took two scan options")
	}
	plan, err := retention.PlanStore(ctx, store, pol, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(plan.Removals()); n != 2 || plan.Report(nil).Summary.BytesReclaimable <= 0 {
		t.Fatalf("plan removes %d (%d bytes), want 2, measured", n, plan.Report(nil).Summary.BytesReclaimable)
	}
	if res, err := plan.Apply(ctx, store, retention.ApplyOptions{}, retention.ApplyOptions{Settle: retention.NoSettle}); err == nil || res == nil || res.Removed != 0 || res.NotAttempted != 2 {
		t.Errorf("Apply took two options: %v, %v", res, err)
	}
	if _, err := os.Stat(b.PkgPath(redis1)); err != nil {
		t.Fatalf("refused Apply changed the store: %v", err)
	}
	res, err := plan.Apply(ctx, store)
	if err != nil || res.Removed != 2 {
		t.Fatalf("Apply: %+v, %v", res, err)
	}
}
