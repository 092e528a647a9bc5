//go:build !windows

package retention_test

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestPlanDepMissing: a dependency that is not installed (a TDEPS line
// naming core/gone, check's dep-not-installed) does not block a plan, and
// the release that names it is judged as any other: kept when the policy
// or another release keeps it, with everything installed it needs, and
// removed otherwise. Keeping it would protect nothing: Habitat finds the
// dependency by joining the line into a path (habitat-sh/habitat
// components/core/src/package/list.rs package_list_for_ident) and finds
// nothing either, so the release is broken whatever hab-gc does, and
// TDEPS names all it needs, so no release it uses is hidden behind the
// missing one. On Linux names that differ in case are other directories:
// a line naming Core/Lib keeps no core/lib (on Windows it does:
// pkgstore/fold.go).
func TestPlanDepMissing(t *testing.T) {
	const (
		lib1 = "core/lib/1.0.0/20200101000000"
		lib2 = "core/lib/1.0.0/20210101000000"
		lib3 = "core/lib/1.0.0/20220101000000"
		gone = "core/gone/1.0.0/20200101000000"
		app1 = "core/app/1.0.0/20200101000000"
		app2 = "core/app/1.0.0/20210101000000"
		// lib2 in another case: another directory here.
		lib2Case = "Core/Lib/1.0.0/20210101000000"
	)
	b := storetest.New(t)
	b.Pkg(lib1).Pkg(lib2).Pkg(lib3)
	b.Add(storetest.Release{Ident: app1, Deps: []string{lib1, gone}, TDeps: []string{lib1, gone}},
		storetest.Release{Ident: app2, Deps: []string{lib1, gone, lib2Case}, TDeps: []string{lib1, gone, lib2Case}})
	for _, id := range []string{lib1, lib2, lib3, app1, app2} {
		b.Chtimes("hab/pkgs/"+id, time.Now().Add(-48*time.Hour))
	}
	p := planNow(t, b.Root, 0, pkgstore.Options{}) // fails on a blocking problem
	missing := map[string]bool{}
	for _, pr := range p.Inventory.Problems {
		if pr.Blocking {
			t.Errorf("blocking problem %s", pr)
		}
		if pr.Kind == pkgstore.ProblemDepMissing {
			missing[pr.Release] = true
		}
	}
	if !missing[app1] || !missing[app2] {
		t.Errorf("dep-not-installed of %v, want %s and %s", missing, app1, app2)
	}
	want := map[string]retention.Action{app2: retention.Keep, lib1: retention.Keep, lib3: retention.Keep,
		app1: retention.Remove, lib2: retention.Remove}
	for id, a := range want {
		d, ok := p.Decision(pkgstore.MustParseIdent(id))
		if !ok || d.Action != a {
			t.Errorf("%s: %+v, want %v", id, d, a)
		}
	}
}
