//go:build windows

package runroots_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestApplyAfterReleaseUninstalled: a release the plan removes that is
// uninstalled before Apply takes the lock (`hab pkg uninstall`, the
// Supervisor's uninstall_all_but_latest, another hab-gc run that held the
// lock first) is gone, and the run goes on. Windows' check for files held
// open (the Probe, which every Windows run has) cannot open a directory
// that is not there: since Apply checks the plan's removals under the lock
// (retention.PlanToApply, 2026-12-07) it asked about it, and the whole
// run was refused (ErrBlind, exit 3), removing nothing.
func TestApplyAfterReleaseUninstalled(t *testing.T) {
	const (
		a1, a2 = "core/a/1/20200101000000", "core/a/2/20210101000000"
		b1, b2 = "core/b/1/20200101000000", "core/b/2/20210101000000"
	)
	for _, how := range []struct {
		name string
		plan func(context.Context, *pkgstore.Store, retention.Policy, time.Time, ...pkgstore.Options) (*retention.Plan, error)
	}{{"PlanToApply", retention.PlanToApply}, {"PlanStore", retention.PlanStore}} {
		t.Run(how.name, func(t *testing.T) {
			b := storetest.New(t)
			for _, id := range []string{a1, a2, b1, b2} {
				b.Add(storetest.Release{Ident: id, Target: "x86_64-windows", ModTime: storetest.OldTime(), Files: map[string]string{"bin/lib.dll": "MZ"}})
			}
			s := storetest.Open(t, b.Root)
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
			plan, err := how.plan(context.Background(), s, pol, time.Now(), pkgstore.Options{Target: "x86_64-windows"})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(plan.Removals()); n != 2 {
				t.Fatalf("the plan removes %d releases, want 2", n)
			}
			if err := testtool.RemoveAll(b.PkgPath(b1)); err != nil { // uninstalled meanwhile
				t.Fatal(err)
			}
			res, err := plan.Apply(context.Background(), s, retention.ApplyOptions{Settle: retention.NoSettle})
			if err != nil {
				t.Fatalf("Apply: %v; want %s removed, %s gone", err, a1, b1)
			}
			if res.Removed != 1 || res.Gone != 1 {
				t.Fatalf("removed %d, gone %d: %+v; want 1 and 1", res.Removed, res.Gone, res.Outcomes)
			}
			if _, err := os.Stat(b.PkgPath(a1)); !os.IsNotExist(err) {
				t.Fatalf("%s: %v; want it removed", a1, err)
			}
		})
	}
}
