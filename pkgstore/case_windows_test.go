//go:build windows

package pkgstore_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// Windows' file systems take names without regard to case: Habitat joins
// a DEPS or TDEPS line, a binstub's target or a spec's ident into a path
// under C:\hab\pkgs (habitat-sh/habitat components/core/src/package/
// list.rs package_list_for_ident pushes the ident's origin and name as
// given), and Windows opens core\redis for Core\Redis. These stores are
// read under Wine, whose names are case-insensitive as Windows' are.
const (
	caseOld   = "core/redis/7.0.0/20210101000000"
	caseNew   = "core/redis/7.0.0/20220101000000"
	caseApp   = "core/app/1.0.0/20220101000000"
	caseOther = "Core/Redis/7.0.0/20210101000000" // caseOld in another case
)

func caseStore(t *testing.T) *storetest.Builder {
	t.Helper()
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: caseOld, Target: "x86_64-windows", Files: map[string]string{"bin/redis-cli.exe": "MZ"}},
		storetest.Release{Ident: caseNew, Target: "x86_64-windows", Files: map[string]string{"bin/redis-cli.exe": "MZ"}},
		storetest.Release{Ident: caseApp, Target: "x86_64-windows", Deps: []string{caseOther}, TDeps: []string{caseOther}})
	// The premise: this file system (Windows', Wine's) opens the release
	// under the other spelling.
	if _, err := os.Stat(b.PkgPath(caseOther)); err != nil {
		t.Fatalf("%s is not %s on this file system: %v", caseOther, caseOld, err)
	}
	return b
}

func scanWindows(t *testing.T, root string) *pkgstore.Inventory {
	t.Helper()
	inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-windows"})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestCaseDeps: a TDEPS line naming a release in another case than its
// directory names that release: the release is its dependency, and no
// dependency is missing.
func TestCaseDeps(t *testing.T) {
	inv := scanWindows(t, caseStore(t).Root)
	app := inv.Installed(pkgstore.MustParseIdent(caseApp))
	if app == nil {
		t.Fatalf("%s not installed: %v", caseApp, inv.Releases)
	}
	if len(app.TDeps) != 1 || len(app.Deps) != 1 {
		t.Fatalf("deps %v, tdeps %v, want one each", app.Deps, app.TDeps)
	}
	for _, d := range [2]pkgstore.Ref{app.Deps[0], app.TDeps[0]} {
		if r := inv.ReleaseOf(d); r == nil || r.Ident.String() != caseOld {
			t.Errorf("%s's dependency %s is %v, want the installed %s", caseApp, inv.Ident(d), r, caseOld)
		}
	}
	for _, p := range inv.Problems {
		if p.Kind == pkgstore.ProblemDepMissing {
			t.Errorf("problem %+v: %s is installed as %s", p, caseOther, caseOld)
		}
	}
}

// TestCaseInstalled: Installed finds a release under any spelling of its
// ident, and gives the store's own.
func TestCaseInstalled(t *testing.T) {
	inv := scanWindows(t, caseStore(t).Root)
	for _, s := range []string{caseOld, caseOther, "CORE/REDIS/7.0.0/20210101000000"} {
		if r := inv.Installed(pkgstore.MustParseIdent(s)); r == nil || r.Ident.String() != caseOld {
			t.Errorf("Installed(%s) = %v, want %s", s, r, caseOld)
		}
	}
	if r := inv.Installed(pkgstore.MustParseIdent("core/redis/7.0.0/20230101000000")); r != nil {
		t.Errorf("a release not installed is %v", r)
	}
}

// TestCaseBinstub: a binstub naming the release in another case is a
// binlink into it, under the store's spelling, and it is not dangling.
func TestCaseBinstub(t *testing.T) {
	b := caseStore(t)
	b.Binstub("hab/bin", "redis-cli", `C:\HAB\PKGS\Core\Redis\7.0.0\20210101000000\bin\redis-cli.exe`, nil)
	inv := scanWindows(t, b.Root)
	if len(inv.Binlinks) != 1 {
		t.Fatalf("binlinks %+v, want one", inv.Binlinks)
	}
	if bl := inv.Binlinks[0]; !bl.InStore || bl.Dangling || bl.Release.String() != caseOld {
		t.Errorf("binlink %+v, want one into %s, not dangling", bl, caseOld)
	}
}

// TestCaseService: a spec naming the package in another case is a
// service of it: the Supervisor lists the versions of C:\hab\pkgs\Core\Redis
// (package_list_for_ident), which is core\redis.
func TestCaseService(t *testing.T) {
	b := caseStore(t)
	b.Spec("redis", "Core/Redis")
	inv := scanWindows(t, b.Root)
	if len(inv.Services) != 1 {
		t.Fatalf("services %+v", inv.Services)
	}
	if s := inv.Services[0]; !s.Installed || s.Resolved.String() != caseNew {
		t.Errorf("service %+v, want it to run %s", s, caseNew)
	}
}

// TestCaseAmbiguous: where two installed releases differ only in case (a
// directory made case-sensitive, fsutil file setCaseSensitiveInfo), a
// third spelling names neither: Windows opens only the exact name there.
// Made in memory, since Wine cannot make two such directories.
func TestCaseAmbiguous(t *testing.T) {
	a, b := pkgstore.MustParseIdent(caseOld), pkgstore.MustParseIdent("CORE/redis/7.0.0/20210101000000")
	other := pkgstore.MustParseIdent(caseOther)
	inv := pkgstore.NewInventory("", "x86_64-windows", []pkgstore.ReleaseInfo{
		{Ident: a}, {Ident: b}, {Ident: pkgstore.MustParseIdent(caseApp), TDeps: []pkgstore.Ident{other}}})
	if r := inv.Installed(other); r != nil {
		t.Errorf("Installed(%s) = %s, want neither of %s and %s", other, r.Ident, a, b)
	}
	for _, id := range []pkgstore.Ident{a, b} {
		if r := inv.Installed(id); r == nil || r.Ident != id {
			t.Errorf("Installed(%s) = %v", id, r)
		}
	}
	// The line keeps both all the same (when in doubt, keep).
	app := inv.Installed(pkgstore.MustParseIdent(caseApp))
	var deps []string
	for _, d := range app.TDeps {
		if r := inv.ReleaseOf(d); r != nil {
			deps = append(deps, r.Ident.String())
		}
	}
	if len(deps) != 2 || !slices.Contains(deps, a.String()) || !slices.Contains(deps, b.String()) {
		t.Errorf("%s's TDEPS line %s names %v, want %s and %s", caseApp, other, deps, a, b)
	}
}
