//go:build unix

package pkgstore_test

import (
	"strings"
	"syscall"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestListingSkipsSayWhy: what Habitat does not list is skipped with a
// non-blocking problem that says so; what it lists (or may list) but
// hab-gc cannot read as a release blocks, and is recorded as Opaque with
// what its DEPS and TDEPS name.
func TestListingSkipsSayWhy(t *testing.T) {
	const dep = "core/dep/1.0/20200101000000"
	tests := []struct {
		name     string
		make     func(b *storetest.Builder)
		path     string
		kind     pkgstore.ProblemKind
		blocking bool
		says     string
	}{
		{"TARGET missing", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "acme/app/1.0/1", Target: "-", Deps: []string{dep}})
		}, "hab/pkgs/acme/app/1.0/1/TARGET", pkgstore.ProblemTarget, false, "Habitat does not list this release"},
		{"TARGET a directory", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "acme/app/1.0/1", Target: "-", Deps: []string{dep}}).Mkdir("hab/pkgs/acme/app/1.0/1/TARGET")
		}, "hab/pkgs/acme/app/1.0/1/TARGET", pkgstore.ProblemTarget, false, "Habitat does not list this release"},
		{"TARGET not a target", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "acme/app/1.0/1", Target: "sparc-plan9", Deps: []string{dep}})
		}, "hab/pkgs/acme/app/1.0/1/TARGET", pkgstore.ProblemTarget, false, "Habitat does not list this release"},
		{"release name not UTF-8", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "acme/app/1.0/1\xff", Deps: []string{dep}})
		}, `hab/pkgs/acme/app/1.0/1\xff`, pkgstore.ProblemBadName, false, "Habitat does not list such a release"},
		{"file for a release", func(b *storetest.Builder) {
			b.File("hab/pkgs/acme/app/1.0/1", "x")
		}, "hab/pkgs/acme/app/1.0/1", pkgstore.ProblemNotDir, false, "Habitat skips it too"},
		{"TARGET a FIFO", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "acme/app/1.0/1", Target: "-", Deps: []string{dep}})
			if err := syscall.Mkfifo(b.Path("hab/pkgs/acme/app/1.0/1/TARGET"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "hab/pkgs/acme/app/1.0/1/TARGET", pkgstore.ProblemTarget, false, "never list this release"},
		{"TARGET a symlink", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "acme/app/1.0/1", Target: "-", Deps: []string{dep}}).
				File("hab/pkgs/acme/app/1.0/1/T", "x86_64-linux").Symlink("T", "hab/pkgs/acme/app/1.0/1/TARGET")
		}, "hab/pkgs/acme/app/1.0/1/TARGET", pkgstore.ProblemTarget, true, "Habitat follows it"},
		{"version name with a space", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "acme/app/2.5.0 rc1/1", Deps: []string{dep}})
		}, "hab/pkgs/acme/app/2.5.0 rc1/1", pkgstore.ProblemBadName, true, "Habitat lists this installed release"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := storetest.New(t).Pkg(dep)
			tt.make(b)
			inv := scan(t, b.Root)
			found := false
			for _, p := range inv.Problems {
				if strings.Contains(p.Message, "leaves it alone") {
					t.Errorf("old wording: %s", p)
				}
				if p.Path == tt.path && p.Kind == tt.kind && p.Blocking == tt.blocking && strings.Contains(p.Message, tt.says) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no %s problem (blocking=%v) at %s saying %q: %v", tt.kind, tt.blocking, tt.path, tt.says, inv.Problems)
			}
			if len(inv.Releases) != 1 {
				t.Errorf("releases = %v, want only %s", idents(inv.Releases), dep)
			}
			switch {
			case tt.blocking && (len(inv.Opaque) != 1 || len(inv.Opaque[0].Deps) != 1 || inv.Opaque[0].Deps[0].String() != dep):
				t.Errorf("opaque = %+v, want one naming %s", inv.Opaque, dep)
			case !tt.blocking && len(inv.Opaque) != 0:
				t.Errorf("opaque = %+v for a release Habitat does not list", inv.Opaque)
			}
		})
	}
}
