package depgraph_test

import (
	"context"
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
	for name, from := range map[string]*depgraph.Graph{"the rescan's earlier graph": prev, "an unrelated graph": other} {
		got, want := depgraph.NewFrom(re, from), depgraph.New(re)
		if got.Len() != want.Len() || got.Edges() != want.Edges() {
			t.Errorf("from %s: %d nodes, %d edges; New: %d, %d", name, got.Len(), got.Edges(), want.Len(), want.Edges())
		}
		for r := range pkgstore.Ref(want.Len()) {
			if a, b := got.Deps(r), want.Deps(r); !slices.Equal(a, b) {
				t.Errorf("from %s: %s needs %v, New says %v", name, re.Ident(r), a, b)
			}
		}
	}
	if r := re.Installed(pkgstore.MustParseIdent(redis)); r == nil || !slices.Contains(depgraph.NewFrom(re, prev).Deps(r.Ref), r.Deps[0]) {
		t.Error("redis's new DEPS were not read")
	}
}
