package depgraph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestNewFrom checks that a graph made from an earlier one has the edges
// New gives: for an inventory a Rescan made of the earlier graph's (the
// unchanged releases' edges copied, a changed one's computed), and for
// an unrelated earlier graph (nothing copied).
func TestNewFrom(t *testing.T) {
	ctx := context.Background()
	b := storetest.New(t).Pkg(glibc).Pkg(openssl, glibc).Pkg(redis, openssl).Pkg(app, redis)
	store := storetest.Open(t, b.Root)
	opts := pkgstore.Options{Target: storetest.DefaultTarget}
	inv, err := store.Scan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	prev := depgraph.New(inv)
	// redis now needs glibc and app (the same number of lines as before),
	// and app is gone: both directories changed.
	b.Remove("hab/pkgs/" + redis).Remove("hab/pkgs/" + app).Add(storetest.Release{Ident: redis, Deps: []string{glibc}, TDeps: []string{glibc, app}})
	changed := []pkgstore.Ident{pkgstore.MustParseIdent(redis), pkgstore.MustParseIdent(app)}
	re, err := store.Rescan(ctx, inv, changed, opts)
	if err != nil {
		t.Fatal(err)
	}
	other := depgraph.New(pkgstore.NewInventory(b.Root, storetest.DefaultTarget, []pkgstore.ReleaseInfo{
		{Ident: pkgstore.MustParseIdent(openssl)}, {Ident: pkgstore.MustParseIdent(glibc), Deps: []pkgstore.Ident{pkgstore.MustParseIdent(redis)}}}))
	// A graph of fewer nodes, unrelated: what Apply's full scan makes
	// from the plan's graph.
	small := pkgstore.NewInventory(b.Root, storetest.DefaultTarget, []pkgstore.ReleaseInfo{{Ident: pkgstore.MustParseIdent(glibc)},
		{Ident: pkgstore.MustParseIdent(openssl), Deps: []pkgstore.Ident{pkgstore.MustParseIdent(glibc)}}})
	for _, built := range []bool{false, true} {
		if built { // reverse edges built: NewFrom may take them
			prev.Dependents(0)
			other.Dependents(0)
		}
		for name, c := range map[string]struct {
			inv  *pkgstore.Inventory
			from *depgraph.Graph
		}{"the rescan's earlier graph": {re, prev}, "an unrelated graph": {re, other}, "a larger unrelated graph": {small, prev}} {
			got, want := depgraph.NewFrom(c.inv, c.from), depgraph.New(c.inv)
			if got.Len() != want.Len() || got.Edges() != want.Edges() {
				t.Errorf("from %s (reverse built %v): %d nodes, %d edges; New: %d, %d", name, built, got.Len(), got.Edges(), want.Len(), want.Edges())
			}
			for r := range pkgstore.Ref(want.Len()) {
				if a, b := got.Deps(r), want.Deps(r); !slices.Equal(a, b) {
					t.Errorf("from %s (reverse built %v): %s needs %v, New says %v", name, built, c.inv.Ident(r), a, b)
				}
				if a, b := got.Dependents(r), want.Dependents(r); !slices.Equal(a, b) {
					t.Errorf("from %s (reverse built %v): %s is needed by %v, New says %v", name, built, c.inv.Ident(r), a, b)
				}
			}
		}
	}
	if r := re.Installed(pkgstore.MustParseIdent(redis)); r == nil || !slices.Contains(depgraph.NewFrom(re, prev).Deps(r.Ref), r.Deps[0]) {
		t.Error("redis's new DEPS were not read")
	}
}

// TestNewFromRescansProperty: after random changes to a store (releases
// added with random dependencies, removed, replaced with other ones),
// each read by a Rescan of the last inventory, a graph made from the
// last one (NewFrom) has New's edges and New's dependents, whether the
// last one's dependents were built (and so taken) or not.
func TestNewFromRescansProperty(t *testing.T) {
	ctx := context.Background()
	opts := pkgstore.Options{Target: storetest.DefaultTarget}
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 35))
		b := storetest.New(t)
		var rels []string
		n := 0
		add := func() string {
			n++
			id := fmt.Sprintf("core/p%d/1.%d/2020010100%04d", rng.IntN(6), n, n)
			var deps []string
			for range rng.IntN(4) {
				if len(rels) > 0 {
					deps = append(deps, rels[rng.IntN(len(rels))])
				}
			}
			if rng.IntN(8) == 0 {
				deps = append(deps, "core/missing/1/1")
			}
			b.Add(storetest.Release{Ident: id, Deps: deps, TDeps: deps})
			rels = append(rels, id)
			return id
		}
		for range 8 {
			add()
		}
		store := storetest.Open(t, b.Root)
		inv, err := store.Scan(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		g := depgraph.New(inv)
		for step := range 20 {
			if rng.IntN(2) == 0 {
				g.Dependents(0) // built: the next graph takes them
			}
			var changed []pkgstore.Ident
			for range 1 + rng.IntN(3) {
				var id string
				switch k := rng.IntN(3); {
				case k == 0 || len(rels) < 3:
					id = add()
				case k == 1:
					i := rng.IntN(len(rels))
					id = rels[i]
					b.Remove("hab/pkgs/" + id)
					rels = slices.Delete(rels, i, i+1)
				default:
					id = rels[rng.IntN(len(rels))]
					b.Remove("hab/pkgs/" + id)
					rels = slices.DeleteFunc(rels, func(r string) bool { return r == id })
					var deps []string
					for range rng.IntN(4) {
						if len(rels) > 0 {
							deps = append(deps, rels[rng.IntN(len(rels))])
						}
					}
					b.Add(storetest.Release{Ident: id, Deps: deps, TDeps: deps})
					rels = append(rels, id)
				}
				changed = append(changed, pkgstore.MustParseIdent(id))
			}
			re, err := store.Rescan(ctx, inv, changed, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, want := depgraph.NewFrom(re, g), depgraph.New(re)
			if got.Len() != want.Len() || got.Edges() != want.Edges() {
				t.Fatalf("seed %d step %d: %d nodes, %d edges; New: %d, %d", seed, step, got.Len(), got.Edges(), want.Len(), want.Edges())
			}
			for r := range pkgstore.Ref(want.Len()) {
				if a, b := got.Deps(r), want.Deps(r); !slices.Equal(a, b) {
					t.Fatalf("seed %d step %d: %s needs %v, New says %v", seed, step, re.Ident(r), a, b)
				}
				if a, b := got.Dependents(r), want.Dependents(r); !slices.Equal(a, b) {
					t.Fatalf("seed %d step %d: %s is needed by %v, New says %v", seed, step, re.Ident(r), a, b)
				}
			}
			inv, g = re, got
		}
	}
}
