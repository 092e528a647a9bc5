package retention_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestPlanAheadOfTheRealClockKeepsYoungReleases: a
// plan whose clock reads 48 hours ahead of the real one, with the default
// minimum age, removes nothing of releases written seconds ago: each is
// young by the real clock (too-young), whether the plan was made by
// PlanStore (which reads the real clock) or by Compute (which reads no
// clock: Apply, judging by its own clock, keeps them), and PlanStore's
// plan warns that its clock is ahead.
func TestPlanAheadOfTheRealClockKeepsYoungReleases(t *testing.T) {
	ids := []string{"core/a/1/1", "core/a/2/2", "core/a/3/3"}
	for _, how := range []string{"PlanStore", "Compute"} {
		t.Run(how, func(t *testing.T) {
			b := storetest.New(t)
			for _, id := range ids {
				b.Add(storetest.Release{Ident: id, Target: pkgstore.DefaultTarget()}) // the target PlanStore scans for
			}
			s := storetest.Open(t, b.Root)
			ahead := time.Now().Add(48 * time.Hour)
			pol := retention.Policy{KeepLatest: 1} // the default minimum age, one hour
			var p *retention.Plan
			var err error
			if how == "PlanStore" {
				p, err = retention.PlanStore(context.Background(), s, pol, ahead)
			} else {
				var inv *pkgstore.Inventory
				if inv, err = s.Scan(context.Background(), pkgstore.Options{Now: ahead}); err == nil {
					p, err = retention.Compute(inv, pol, nil, ahead, nil)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if how == "PlanStore" {
				for _, id := range ids[:2] {
					if d := decision(t, p, id); d.Action != retention.Keep || !hasCode(d, retention.CodeYoung, "real clock") {
						t.Errorf("%s: %s %v; want kept as too young by the real clock", id, d.Action, d.Reasons)
					}
				}
				warned := false
				for _, w := range p.Warnings {
					warned = warned || (w.Kind == retention.WarnClockAhead && strings.Contains(w.Text, "ahead of the real clock"))
				}
				if !warned {
					t.Errorf("warnings %v; want one that the plan's clock is ahead of the real clock", p.Warnings)
				}
			}
			res, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: -1})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if !exists(b.PkgPath(id)) {
					o, _ := outcome(res, id)
					t.Errorf("%s, written seconds ago, was removed (%+v)", id, o)
				}
			}
		})
	}
}

// TestPlanClockNearTheRealOneWarnsNothing: a plan whose clock is the real
// one, or behind it, or ahead by less than ClockAheadWarning, has no
// clock warning; ahead by more, it has, also with NoMinAge, which removes
// what is old by the plan's clock whatever the real one says.
func TestPlanClockNearTheRealOneWarnsNothing(t *testing.T) {
	b := storetest.New(t)
	for _, id := range []string{"core/a/1/1", "core/a/2/2"} {
		b.Add(storetest.Release{Ident: id, Target: pkgstore.DefaultTarget()}) // the target PlanStore scans for
	}
	s := storetest.Open(t, b.Root)
	for _, tc := range []struct {
		name  string
		ahead time.Duration
		warn  bool
	}{
		{"real", 0, false},
		{"behind", -48 * time.Hour, false},
		{"a minute ahead", time.Minute, false},
		{"an hour ahead", time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := retention.PlanStore(context.Background(), s, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, time.Now().Add(tc.ahead))
			if err != nil {
				t.Fatal(err)
			}
			warned := false
			for _, w := range p.Warnings {
				warned = warned || w.Kind == retention.WarnClockAhead
			}
			if warned != tc.warn {
				t.Errorf("clock warning %v, want %v: %v", warned, tc.warn, p.Warnings)
			}
			if d := decision(t, p, "core/a/1/1"); d.Action != retention.Remove {
				t.Errorf("core/a/1/1: %s %v; want removed (no minimum age)", d.Action, d.Reasons)
			}
		})
	}
}
