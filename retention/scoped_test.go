package retention_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// scopedStore makes an inventory for TestPropertyScopedPlan: up to 8
// packages of up to 7 releases, dependencies on older and newer releases
// of any package (chains, shared dependencies, rare cycles, missing
// releases), services, binlinks, installs, damage, mounts and ages.
func scopedStore(rng *rand.Rand) (*pkgstore.Inventory, []pkgstore.Ident) {
	var all []pkgstore.Ident
	var infos []pkgstore.ReleaseInfo
	for p := range 1 + rng.IntN(8) {
		origin, name := "core", fmt.Sprintf("p%d", p)
		if p == 0 && rng.IntN(5) == 0 {
			origin, name = "chef", []string{"hab", "hab-sup"}[rng.IntN(2)]
		}
		for r := range 1 + rng.IntN(7) {
			id := pkgstore.Ident{Origin: origin, Name: name, Version: versionPool[rng.IntN(4)], Release: fmt.Sprintf("2020%02d%02d000000", 1+rng.IntN(12), 1+r)}
			if slices.Contains(all, id) {
				continue
			}
			all = append(all, id)
			infos = append(infos, pkgstore.ReleaseInfo{Ident: id, ModTime: now.Add(-time.Duration(rng.IntN(72)) * time.Hour)})
		}
	}
	for i := range infos {
		for range rng.IntN(5) {
			var d pkgstore.Ident
			switch {
			case rng.IntN(12) == 0:
				d = pkgstore.Ident{Origin: "core", Name: "missing", Version: "1", Release: "1"}
			case rng.IntN(8) == 0:
				d = all[rng.IntN(len(all))] // may form a cycle
			default:
				d = all[rng.IntN(i+1)]
			}
			if d == infos[i].Ident {
				continue
			}
			if rng.IntN(2) == 0 {
				infos[i].Deps = append(infos[i].Deps, d)
			}
			infos[i].TDeps = append(infos[i].TDeps, d)
		}
	}
	inv := pkgstore.NewInventory("/", "x86_64-linux", infos)
	pick := func() pkgstore.Ident { return all[rng.IntN(len(all))] }
	for k := range rng.IntN(4) {
		id := pick()
		switch rng.IntN(3) {
		case 0:
			id = id.Package()
		case 1:
			id.Release = ""
		}
		inv.AddService(fmt.Sprintf("svc%d", k), id)
	}
	if rng.IntN(3) == 0 {
		inv.AddBinlink("bin/x", pick())
	}
	if rng.IntN(5) == 0 {
		inv.Installing = append(inv.Installing, pkgstore.Installing{Path: "core/p0/1.0/.hab-pkg-install-x", Deps: []pkgstore.Ident{pick()},
			Known: true, From: "TDEPS", Active: rng.IntN(4) == 0})
	}
	if rng.IntN(8) == 0 {
		inv.Opaque = append(inv.Opaque, pkgstore.Opaque{Path: "core/odd/1/1", Deps: []pkgstore.Ident{pick()}, DepsUnknown: rng.IntN(4) == 0})
	}
	if rng.IntN(8) == 0 {
		m := pick()
		inv.Mounts = append(inv.Mounts, m.String()+"/mnt")
	}
	if rng.IntN(10) == 0 {
		inv.Releases[rng.IntN(len(inv.Releases))].Damaged = true
	}
	if rng.IntN(15) == 0 {
		inv.Releases[rng.IntN(len(inv.Releases))].DepsUnknown = true
	}
	if rng.IntN(10) == 0 {
		r := pick()
		inv.Problems = append(inv.Problems, pkgstore.Problem{Path: "hab/pkgs/" + r.String() + "/IDENT", Kind: pkgstore.ProblemIdent, Message: "IDENT differs", Release: r.String()})
	}
	return inv, all
}

// scopedPolicy is a random limited policy over all's packages: Only
// (packages, versions, releases, several), ServicesOnly, or both; with
// or without FreeDeps or NoDeps, counts, pins, a minimum age.
func scopedPolicy(rng *rand.Rand, all []pkgstore.Ident) retention.Policy {
	pol := retention.Policy{KeepLatest: retention.KeepCount(rng.IntN(4)), MinAge: retention.NoMinAge,
		FreeDeps: rng.IntN(3) > 0, NoDeps: rng.IntN(5) == 0, ServicesOnly: rng.IntN(4) == 0, SelfKeepLatest: rng.IntN(3),
		IgnoreUninstallHooks: rng.IntN(6) == 0}
	if rng.IntN(4) == 0 {
		pol.MinAge = time.Duration(1+rng.IntN(48)) * time.Hour
	}
	if !pol.ServicesOnly || rng.IntN(2) == 0 {
		for range 1 + rng.IntN(2) {
			id := all[rng.IntN(len(all))]
			switch rng.IntN(4) {
			case 0, 1:
				id = id.Package()
			case 2:
				id.Release = ""
			}
			pol.Only = append(pol.Only, id)
		}
		if rng.IntN(10) == 0 {
			pol.Only = append(pol.Only, pkgstore.Ident{Origin: "core", Name: "nothing"})
		}
	}
	if rng.IntN(4) == 0 {
		if id := all[rng.IntN(len(all))].Package(); !retention.IsHabitatPackage(id) {
			pol.KeepLatestFor = []retention.PackageCount{{Package: id, Keep: retention.KeepCount(rng.IntN(3))}}
		}
	}
	if rng.IntN(4) == 0 {
		id := all[rng.IntN(len(all))]
		raw := id.Package().String()
		if rng.IntN(2) == 0 {
			raw += "@>=1.2"
		}
		ex, err := retention.ParseExclude(raw)
		if err != nil {
			panic(err)
		}
		pol.Excludes = []retention.Exclude{ex}
	}
	return pol
}

// TestPropertyScopedPlan: a scoped plan (PlanScope's) decides as the
// whole plan does. Over random stores and limited policies: the same
// error, InstallWait, pins and warnings; every release the whole plan
// removes is in the scoped plan's list with the same reasons; every
// release it lists has the whole plan's action and reason codes (and
// texts, but for the chain a kept dependency names); every other release
// is kept by the whole plan, and Decision keeps it; Why gives a chain of
// kept releases, each needing the next, from a root to the release.
func TestPropertyScopedPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	stores := 20000
	if testing.Short() {
		stores = 2000
	}
	scopedSmaller := 0
	for i := range stores {
		inv, all := scopedStore(rng)
		pol := scopedPolicy(rng, all)
		hooked := map[pkgstore.Ident]bool{}
		for _, id := range all {
			hooked[id] = rng.IntN(4) == 0
		}
		hooks := func(id pkgstore.Ident) bool { return hooked[id] }
		var found []retention.Found
		if rng.IntN(4) == 0 {
			found = []retention.Found{{Source: "test", Roots: []retention.Root{{Ident: all[rng.IntN(len(all))], Code: retention.CodeInUse, Text: "process 1 uses it"}}}}
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("store %d (%s), policy %+v: %s", i, storeView(inv), pol, fmt.Sprintf(format, args...))
		}
		full, ferr := retention.ComputeFound(inv, pol, now, hooks, found)
		scoped, serr := retention.ComputeScoped(inv, pol, now, hooks, found)
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			fail("errors: whole %v, scoped %v", ferr, serr)
		}
		if ferr != nil {
			continue
		}
		if id, bad := retention.IsRootDisagrees(scoped); bad {
			fail("%s: isRoot and rootsOf disagree", id)
		}
		if full.InstallWait != scoped.InstallWait {
			fail("install wait: whole %q, scoped %q", full.InstallWait, scoped.InstallWait)
		}
		if fmt.Sprint(full.Pins, full.Warnings) != fmt.Sprint(scoped.Pins, scoped.Warnings) {
			fail("pins and warnings: whole %v %v, scoped %v %v", full.Pins, full.Warnings, scoped.Pins, scoped.Warnings)
		}
		listed := map[pkgstore.Ident]bool{}
		for _, d := range scoped.Decisions {
			listed[d.Release.Ident] = true
		}
		if len(scoped.Decisions) < len(full.Decisions) {
			scopedSmaller++
		}
		for _, fd := range full.Decisions {
			id := fd.Release.Ident
			sd, ok := scoped.Decision(id)
			if !ok {
				fail("scoped plan has no decision for %s", id)
			}
			if sd.Action != fd.Action {
				fail("%s: whole plan %s %+v, scoped %s %+v", id, fd.Action, fd.Reasons, sd.Action, sd.Reasons)
			}
			if !listed[id] {
				if fd.Action != retention.Keep {
					fail("%s removed by the whole plan is not in the scoped plan's list", id)
				}
				continue
			}
			if fd.Action == retention.Remove && fmt.Sprint(fd.Reasons) != fmt.Sprint(sd.Reasons) {
				fail("%s removed: whole plan's reasons %+v, scoped %+v", id, fd.Reasons, sd.Reasons)
			}
			if a, b := reasonView(fd.Reasons), reasonView(sd.Reasons); !slices.Equal(a, b) {
				fail("%s: whole plan's reasons %v, scoped %v", id, a, b)
			}
		}
		for _, fd := range full.Decisions {
			ex, err := scoped.Why(fd.Release.Ident)
			if err != nil {
				fail("Why %s: %v", fd.Release.Ident, err)
			}
			if fd.Action == retention.Remove {
				continue
			}
			if len(ex.Chain) == 0 || ex.Chain[len(ex.Chain)-1] != fd.Release.Ident || len(ex.RootReasons) == 0 {
				fail("Why %s: chain %v, root reasons %v", fd.Release.Ident, ex.Chain, ex.RootReasons)
			}
			for k, c := range ex.Chain {
				if d, _ := full.Decision(c); d.Action != retention.Keep {
					fail("Why %s: chain %v passes through %s, which the whole plan removes", fd.Release.Ident, ex.Chain, c)
				}
				if k > 0 {
					from, _ := inv.Lookup(ex.Chain[k-1])
					to, _ := inv.Lookup(c)
					if !slices.Contains(full.Graph.Deps(from), to) {
						fail("Why %s: chain %v: %s does not need %s", fd.Release.Ident, ex.Chain, ex.Chain[k-1], c)
					}
				}
			}
		}
	}
	if scopedSmaller < stores/4 {
		t.Errorf("only %d of %d scoped plans decided fewer releases than the whole plan", scopedSmaller, stores)
	}
}

// reasonView is reasons as the scoped plan must match them: code and
// text, but for a dependency's, whose chain may differ.
func reasonView(rs []retention.Reason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r.Code)
		if r.Code != retention.CodeDependency {
			out[i] += ": " + r.Text
		}
	}
	return out
}

// storeView is each release with what it needs, for a failure message.
func storeView(inv *pkgstore.Inventory) string {
	var out []string
	for _, r := range inv.Releases {
		var deps []string
		for _, d := range slices.Concat(r.Deps, r.TDeps) {
			deps = append(deps, inv.Ident(d).String())
		}
		out = append(out, fmt.Sprintf("%s <- %v", r.Ident, deps))
	}
	return fmt.Sprint(out)
}
