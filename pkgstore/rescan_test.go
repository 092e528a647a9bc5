package pkgstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestRescan checks what a Rescan takes again from the previous
// inventory and what it reads afresh. A change the caller does not report
// (a DEPS rewritten in place, which Habitat never does) shows which: an
// unreported directory keeps what the previous scan read, a reported one
// is read again, and so is every directory holding an install directory,
// reported or not. The previous inventory is never changed.
func TestRescan(t *testing.T) {
	ctx := context.Background()
	const (
		r1 = "core/a/1.0/20200101000000"
		r2 = "core/b/1.0/20200101000000"
		r3 = "core/b/2.0/20210101000000"
		r4 = "core/c/1.0/20200101000000"
	)
	b := storetest.New(t).Pkg(r1).Pkg(r2).Pkg(r4)
	install := "hab/pkgs/core/c/1.0/.hab-pkg-install-20210101000000abcdef/hab/pkgs/core/c/1.0/20210101000000/TDEPS"
	b.File(install, r1+"\n")
	store := storetest.Open(t, b.Root)
	opts := pkgstore.Options{Target: storetest.DefaultTarget}
	inv0, err := store.Scan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	deps := func(inv *pkgstore.Inventory, id string) []string {
		t.Helper()
		want, _ := pkgstore.ParseFullIdent(id)
		r := inv.Installed(want)
		if r == nil {
			t.Fatalf("%s is not in the inventory", id)
		}
		var out []string
		for _, d := range r.Deps {
			out = append(out, inv.Ident(d).String())
		}
		return out
	}
	installDeps := func(inv *pkgstore.Inventory) []string {
		var out []string
		for _, in := range inv.Installing {
			for _, d := range in.Deps {
				out = append(out, d.String())
			}
		}
		return out
	}

	b.File("hab/pkgs/"+r1+"/DEPS", r2+"\n") // in place: not reported below
	b.Pkg(r3)
	b.File(install, r2+"\n")
	a, bb := pkgstore.Ident{Origin: "core", Name: "a"}, pkgstore.Ident{Origin: "core", Name: "b"}

	inv1, err := store.Rescan(ctx, inv0, []pkgstore.Ident{bb}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := deps(inv1, r1); len(got) != 0 {
		t.Errorf("core/a was not reported changed, yet its release was read again: DEPS %v", got)
	}
	deps(inv1, r3) // core/b, reported, is read again
	if got := installDeps(inv1); !slices.Equal(got, []string{r2}) {
		t.Errorf("the install directory in core/c was not read again: it needs %v, want %s", got, r2)
	}

	inv2, err := store.Rescan(ctx, inv1, []pkgstore.Ident{a}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := deps(inv2, r1); !slices.Equal(got, []string{r2}) {
		t.Errorf("core/a, reported, was not read again: DEPS %v, want %s", got, r2)
	}
	full, err := store.Scan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := len(inv2.Releases), len(full.Releases); a != b {
		t.Errorf("the rescan has %d releases, a scan %d", a, b)
	}

	// The earlier inventories are as they were read.
	if inv0.Installed(pkgstore.MustParseIdent(r3)) != nil || len(deps(inv0, r1)) != 0 {
		t.Error("a rescan changed the inventory it took from")
	}
	if r0, r1 := inv0.Installed(pkgstore.MustParseIdent(r2)), inv1.Installed(pkgstore.MustParseIdent(r2)); r0 == r1 {
		t.Error("the rescan shares a Release with the inventory it took from")
	}

	// Without a previous inventory, a Rescan is a Scan.
	again, err := store.Rescan(ctx, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := deps(again, r1); !slices.Equal(got, []string{r2}) {
		t.Errorf("a Rescan of nothing took something again: DEPS %v", got)
	}
}
