package runroots

import (
	"context"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestIdentityFindsReleasesByDirectory: the index made from an inventory
// and the one read from disk map each release directory, and a hidden
// one, to its release by device and inode, and nothing else to any.
func TestIdentityFindsReleasesByDirectory(t *testing.T) {
	b := storetest.New(t)
	idents := []string{"core/a/1.0.0/20240101000000", "core/a/2.0.0/20240201000000", "core/b/1.0.0/20240101000000", "other/c/3.0.0/20240301000000"}
	for _, id := range idents {
		b.Pkg(id)
	}
	hidden := "hab/pkgs/core/a/1.0.0/" + pkgstore.DebrisPrefix + "pending-20231201000000-ABCDEFGHIJ"
	b.File(hidden+"/IDENT", "core/a/1.0.0/20231201000000\n")
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: storetest.DefaultTarget})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Releases) != len(idents) {
		t.Fatalf("scan found %d releases, want %d", len(inv.Releases), len(idents))
	}
	idOf := func(t *testing.T, p string) fileID {
		t.Helper()
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return fileID{st.Dev, st.Ino}
	}
	for name, ix := range map[string]*identity{"inventory": identityOf(inv)} {
		t.Run(name, func(t *testing.T) {
			for _, want := range idents {
				got, h, ok := ix.find(idOf(t, b.PkgPath(want)))
				if !ok || got.String() != want || h {
					t.Errorf("%s: found %v (hidden %v, ok %v)", want, got, h, ok)
				}
				if !ix.names[want[len(want)-14:]] {
					t.Errorf("%s: its name is not indexed", want)
				}
			}
			got, h, ok := ix.find(idOf(t, b.Path(hidden)))
			if !ok || !h || got.String() != "core/a/1.0.0/20231201000000" {
				t.Errorf("hidden directory: found %v (hidden %v, ok %v)", got, h, ok)
			}
			for _, other := range []string{"hab/pkgs/core", "hab/pkgs/core/a", "hab/pkgs/core/a/1.0.0", "hab/pkgs"} {
				if got, _, ok := ix.find(idOf(t, b.Path(other))); ok {
					t.Errorf("%s is not a release directory, found as %v", other, got)
				}
			}
		})
	}
}

// TestIdentityLastAddedWins: of two records with one identity, find
// returns the one added last (as the map it replaced did), whatever the
// order of the others.
func TestIdentityLastAddedWins(t *testing.T) {
	ix := newIdentity(0)
	a := pkgstore.MustParseIdent("core/a/1.0.0/20240101000000")
	c := pkgstore.MustParseIdent("core/c/1.0.0/20240101000000")
	d := pkgstore.MustParseIdent("core/d/1.0.0/20240101000000")
	ix.addIdent(fileID{2, 9}, a, false)
	ix.addIdent(fileID{1, 5}, c, false)
	ix.addIdent(fileID{2, 9}, d, true)
	ix.addIdent(fileID{1, 4}, a, false)
	ix.sort()
	if len(ix.recs) != 3 {
		t.Fatalf("%d records, want 3", len(ix.recs))
	}
	for _, tc := range []struct {
		id     fileID
		want   string
		hidden bool
	}{{fileID{2, 9}, d.String(), true}, {fileID{1, 5}, c.String(), false}, {fileID{1, 4}, a.String(), false}} {
		got, h, ok := ix.find(tc.id)
		if !ok || got.String() != tc.want || h != tc.hidden {
			t.Errorf("%v: found %v (hidden %v, ok %v), want %s (hidden %v)", tc.id, got, h, ok, tc.want, tc.hidden)
		}
	}
	if _, _, ok := ix.find(fileID{1, 6}); ok {
		t.Error("found an identity never added")
	}
}
