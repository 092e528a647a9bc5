package retention_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

var versionPool = []string{"1.0", "1.0.0", "1.2", "2.0-rc1", "2.0", "10.1", "master", "1.0.", "2016i", "1.0.2k"}

// randomStore makes an inventory with up to 6 packages of up to 6 releases,
// random dependencies (some on missing releases, rare cycles), services,
// binlinks and ages.
func randomStore(rng *rand.Rand) (*pkgstore.Inventory, []pkgstore.Ident) {
	var all []pkgstore.Ident
	var infos []pkgstore.ReleaseInfo
	npkg := 1 + rng.IntN(6)
	for p := 0; p < npkg; p++ {
		origin := "core"
		if p == 0 && rng.IntN(4) == 0 {
			origin = "chef"
		}
		name := fmt.Sprintf("p%d", p)
		if origin == "chef" {
			name = "hab"
		}
		for r := 0; r < 1+rng.IntN(6); r++ {
			id := pkgstore.Ident{Origin: origin, Name: name, Version: versionPool[rng.IntN(len(versionPool))], Release: fmt.Sprintf("2020%02d%02d000000", 1+rng.IntN(12), 1+r)}
			dup := false
			for _, x := range all {
				dup = dup || x == id
			}
			if dup {
				continue
			}
			all = append(all, id)
			infos = append(infos, pkgstore.ReleaseInfo{Ident: id, ModTime: now.Add(-time.Duration(rng.IntN(72)) * time.Hour)})
		}
	}
	for i := range infos {
		for k := 0; k < rng.IntN(4); k++ {
			var d pkgstore.Ident
			switch {
			case rng.IntN(10) == 0:
				d = pkgstore.Ident{Origin: "core", Name: "missing", Version: "1", Release: "1"}
			case rng.IntN(15) == 0:
				d = all[rng.IntN(len(all))] // may form a cycle
			default:
				j := rng.IntN(i + 1)
				if j == i {
					continue
				}
				d = all[j]
			}
			if rng.IntN(2) == 0 {
				infos[i].Deps = append(infos[i].Deps, d)
			}
			infos[i].TDeps = append(infos[i].TDeps, d)
		}
	}
	inv := pkgstore.NewInventory("/", "x86_64-linux", infos)
	for k := 0; k < rng.IntN(3); k++ {
		id := all[rng.IntN(len(all))]
		if rng.IntN(2) == 0 {
			id = id.Package()
		}
		inv.AddService(fmt.Sprintf("svc%d", k), id)
	}
	if rng.IntN(3) == 0 {
		inv.AddBinlink("bin/x", all[rng.IntN(len(all))])
	}
	return inv, all
}

func without(inv *pkgstore.Inventory, gone map[pkgstore.Ident]bool) *pkgstore.Inventory {
	var infos []pkgstore.ReleaseInfo
	for _, r := range inv.Releases {
		if gone[r.Ident] {
			continue
		}
		ri := pkgstore.ReleaseInfo{Ident: r.Ident, ModTime: r.ModTime}
		for _, d := range r.Deps {
			ri.Deps = append(ri.Deps, inv.Ident(d))
		}
		for _, d := range r.TDeps {
			ri.TDeps = append(ri.TDeps, inv.Ident(d))
		}
		infos = append(infos, ri)
	}
	out := pkgstore.NewInventory(inv.FSRoot, inv.Target, infos)
	for _, s := range inv.Services {
		out.AddService(s.Name, s.Ident)
	}
	for _, b := range inv.Binlinks {
		out.AddBinlink(b.Path, b.Release)
	}
	return out
}

func TestPlanInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	stores := 3000
	if testing.Short() {
		stores = 300
	}
	for i := 0; i < stores; i++ {
		inv, _ := randomStore(rng)
		pol := retention.Policy{KeepLatest: retention.KeepCount(rng.IntN(4)), MinAge: time.Duration(rng.IntN(48)) * time.Hour}
		if pol.MinAge == 0 {
			pol.MinAge = retention.NoMinAge
		}
		if rng.IntN(4) == 0 {
			pol.Only = []pkgstore.Ident{{Origin: "core", Name: "p1"}}
		}
		pol.FreeDeps = rng.IntN(3) == 0
		pol.ServicesOnly = rng.IntN(5) == 0
		pol.NoDeps = rng.IntN(6) == 0
		p, err := retention.Compute(inv, pol, nil, now, nil)
		if err != nil {
			t.Fatal(err)
		}
		removed := map[pkgstore.Ident]bool{}
		for _, d := range p.Removals() {
			removed[d.Release.Ident] = true
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("store %d, policy %+v: %s", i, pol, fmt.Sprintf(format, args...))
		}
		// 1. No removed release is needed, directly or transitively, by a kept one.
		for _, d := range p.Keeps() {
			for _, dep := range p.Graph.Closure(d.Release.Ref) {
				if removed[inv.Ident(dep)] {
					fail("kept %s needs removed %s", d.Release.Ident, inv.Ident(dep))
				}
			}
		}
		// 2. Every root is kept.
		for _, s := range inv.Services {
			if s.Installed && removed[s.Resolved] {
				fail("service %s's release %s removed", s.Name, s.Resolved)
			}
			for _, a := range s.Ambiguous {
				if removed[a] {
					fail("ambiguous candidate %s removed", a)
				}
			}
		}
		for _, b := range inv.Binlinks {
			if removed[b.Release] {
				fail("binlinked %s removed", b.Release)
			}
		}
		for _, r := range inv.Releases {
			if pol.MinAge > 0 && now.Sub(r.InstalledAt()) < pol.MinAge && removed[r.Ident] {
				fail("young %s removed", r.Ident)
			}
		}
		// 3. Each origin/name keeps at least min(N, releases) of its newest.
		byPkg := map[pkgstore.Ident][]*pkgstore.Release{}
		for _, r := range inv.Releases {
			byPkg[r.Ident.Package()] = append(byPkg[r.Ident.Package()], r)
		}
		for pkg, rels := range byPkg {
			n := max(pol.KeepLatest, 0)
			if retention.IsHabitatPackage(pkg) {
				n = max(n, 1)
			}
			for i, r := range rels[max(0, len(rels)-n):] {
				if !removed[r.Ident] {
					continue
				}
				// The freed-dependency rule takes the count from a
				// dependency (never from a package's newest, store-wide).
				d, _ := p.Decision(r.Ident)
				code := d.Reasons[0].Code
				limited := len(pol.Only) > 0 || pol.ServicesOnly
				freeDeps := (pol.FreeDeps || pol.ServicesOnly) && !pol.NoDeps
				switch {
				case freeDeps && limited && code == retention.CodeFreed:
				case freeDeps && !limited && code == retention.CodeUnusedDep && i < len(rels[max(0, len(rels)-n):])-1:
				default:
					fail("%s is among the newest %d of %s but removed (%+v)", r.Ident, n, pkg, d.Reasons)
				}
			}
		}
		// 4. Planning again after removing the plan's releases removes nothing more.
		if len(removed) > 0 {
			p2, err := retention.Compute(without(inv, removed), pol, nil, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r := p2.Removals(); len(r) > 0 {
				fail("second plan removes %s (%+v)", r[0].Release.Ident, r[0].Reasons)
			}
		}
	}
}
