package pkgstore_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

func TestInferTarget(t *testing.T) {
	const k2, arm = "x86_64-linux-kernel2", "aarch64-linux"
	type rel struct{ ident, target string }
	cases := []struct {
		name     string
		rels     []rel
		want     string
		wantFrom string
		err      error
	}{
		{"no store", nil, pkgstore.DefaultTarget(), "", nil},
		{"chef/hab", []rel{{"chef/hab/1.6.0/20200101000000", k2}, {"core/a/1/20200101000000", k2}}, k2, "chef/hab/1.6.0/20200101000000", nil},
		{"chef/hab before chef/hab-sup", []rel{{"chef/hab/1.6.0/20200101000000", k2}, {"chef/hab-sup/1.6.0/20200101000000", arm}}, k2, "chef/hab/1.6.0/20200101000000", nil},
		{"chef/hab-sup", []rel{{"chef/hab-sup/1.6.0/20200101000000", arm}}, arm, "chef/hab-sup/1.6.0/20200101000000", nil},
		{"core/hab", []rel{{"core/hab/0.80.0/20190101000000", k2}}, k2, "core/hab/0.80.0/20190101000000", nil},
		{"bad TARGET ignored", []rel{{"chef/hab/1.6.0/20200101000000", "nonsense"}, {"core/hab/0.80.0/20190101000000", k2}}, k2, "core/hab/0.80.0/20190101000000", nil},
		{"several, this machine's among them", []rel{{"chef/hab/1.6.0/20200101000000", k2}, {"chef/hab/1.6.1/20200201000000", pkgstore.DefaultTarget()}}, pkgstore.DefaultTarget(), "chef/hab/1.6.1/20200201000000", nil},
		{"several, not this machine's", []rel{{"chef/hab/1.6.0/20200101000000", k2}, {"chef/hab/1.6.1/20200201000000", notThisMachine()}}, "", "", pkgstore.ErrTargetAmbiguous},
		{"no Habitat release", []rel{{"core/a/1/20200101000000", k2}}, pkgstore.DefaultTarget(), "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			if tc.rels == nil {
				os.RemoveAll(b.Path("hab/pkgs"))
			}
			for _, r := range tc.rels {
				b.Add(storetest.Release{Ident: r.ident, Target: r.target})
			}
			got, from, err := pkgstore.InferTarget(b.Root)
			if !errors.Is(err, tc.err) || got != tc.want || from != tc.wantFrom {
				t.Fatalf("got %q from %q, %v; want %q from %q, %v", got, from, err, tc.want, tc.wantFrom, tc.err)
			}
		})
	}
}

// No release of the target scanned for, but releases of others: a
// blocking problem naming them (run refuses, check errs), never a quiet
// scan that does nothing.
func TestScanTargetNotInstalled(t *testing.T) {
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "core/a/1/20200101000000", Target: "x86_64-linux-kernel2"},
		storetest.Release{Ident: "core/a/2/20210101000000", Target: "x86_64-linux-kernel2"})
	inv := scan(t, b.Root) // x86_64-linux
	found := false
	for _, p := range inv.Problems {
		if p.Kind == pkgstore.ProblemTargetNotInstalled && p.Blocking && p.Path == "hab/pkgs" {
			found = true
			if want := "2 of x86_64-linux-kernel2"; !strings.Contains(p.Message, want) {
				t.Errorf("message %q does not say %q", p.Message, want)
			}
		}
	}
	if !found {
		t.Fatalf("no blocking target-not-installed: %v", inv.Problems)
	}
	// With one release of the target, the others are only notices.
	b.Pkg("core/b/1/20200101000000")
	for _, p := range scan(t, b.Root).Problems {
		if p.Kind == pkgstore.ProblemTargetNotInstalled {
			t.Fatalf("problem %v with a release of the target installed", p)
		}
	}
}

// notThisMachine is a known target that is not this machine's.
func notThisMachine() string {
	if pkgstore.DefaultTarget() == "x86_64-windows" {
		return "x86_64-linux"
	}
	return "x86_64-windows"
}
