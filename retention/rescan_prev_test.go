package retention_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestPlanRescanLeavesThePreviousPlanAsItWas: PlanRescan and PlanScope
// take the previous plan's releases again (pkgstore.Store.Rescan shares
// them), and a plan reports sizes for its removals alone; the next plan
// keeping a release the previous one removes (another count) must not
// change what the previous one says of it: its removals' sizes,
// ReclaimableBytes, its report. And each plan says sizes of its own
// removals only.
func TestPlanRescanLeavesThePreviousPlanAsItWas(t *testing.T) {
	for _, scoped := range []bool{false, true} {
		t.Run(fmt.Sprintf("scoped=%v", scoped), func(t *testing.T) {
			rels := []string{"core/a/1.0/20200101000000", "core/a/1.1/20200201000000", "core/a/1.2/20200301000000"}
			b := storetest.New(t)
			for _, id := range rels {
				b.Add(storetest.Release{Ident: id, Files: map[string]string{"bin/x": string(make([]byte, 10000))}})
			}
			b.Old(rels...)
			store := storetest.Open(t, b.Root)
			ctx := context.Background()
			now := time.Now()
			scan := pkgstore.Options{Target: storetest.DefaultTarget}
			plan := retention.PlanRescan
			pol := func(keep int) retention.Policy {
				p := retention.Policy{KeepLatest: keep, MinAge: retention.NoMinAge}
				if scoped {
					plan = retention.PlanScope
					p.Only = []pkgstore.Ident{pkgstore.MustParseIdent("core/a")}
				}
				return p
			}
			sizes := func(p *retention.Plan) string {
				var out string
				for _, d := range p.Decisions {
					out += fmt.Sprintf("%s %s %d; ", d.Release.Ident, d.Action, d.Release.Size)
				}
				return out + fmt.Sprint("reclaimable ", p.ReclaimableBytes())
			}
			check := func(p *retention.Plan) {
				t.Helper()
				for _, d := range p.Decisions {
					if (d.Action == retention.Remove) != (d.Release.Size >= 0) {
						t.Errorf("%s: %s with size %d: a plan says sizes of its removals, and only those", d.Release.Ident, d.Action, d.Release.Size)
					}
				}
			}
			p1, err := plan(ctx, store, nil, nil, pol(1), now, scan)
			if err != nil {
				t.Fatal(err)
			}
			check(p1)
			before := sizes(p1)
			if p1.ReclaimableBytes() <= 0 {
				t.Fatalf("the first plan reclaims nothing: %s", before)
			}
			p2, err := plan(ctx, store, p1, nil, pol(3), now, scan)
			if err != nil {
				t.Fatal(err)
			}
			check(p2)
			if after := sizes(p1); after != before {
				t.Errorf("planning again from the first plan changed it:\nbefore %s\nafter  %s", before, after)
			}
			before2 := sizes(p2)
			p3, err := plan(ctx, store, p2, nil, pol(1), now, scan)
			if err != nil {
				t.Fatal(err)
			}
			check(p3)
			if p3.ReclaimableBytes() != p1.ReclaimableBytes() {
				t.Errorf("the third plan reclaims %d, the first %d", p3.ReclaimableBytes(), p1.ReclaimableBytes())
			}
			if after := sizes(p2); after != before2 {
				t.Errorf("planning again from the second plan changed it:\nbefore %s\nafter  %s", before2, after)
			}
		})
	}
}
