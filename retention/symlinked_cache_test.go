package retention_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestSymlinkedCacheFetchedArchive: an artifact
// cache moved to a bigger disk and linked back (FS_ROOT/hab/cache/artifacts
// a symlink, which Habitat follows) still shows the archives being
// installed: a fresh one of a release that is not installed makes every
// removal wait, and what it names is kept (hab-gc only reads there; the
// cache clean-up still refuses such a cache).
func TestSymlinkedCacheFetchedArchive(t *testing.T) {
	testtool.NeedSymlinks(t)
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	big := filepath.Join(testtool.TempDir(t), "artifacts")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(b.Path("hab/cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(big, b.Path(pkgstore.ArtifactCacheDir)); err != nil {
		t.Fatal(err)
	}
	a := storetest.Archive{Ident: libIdent, Deps: []string{depOld}, Payload: []string{"lib/liblib.so"}}
	if err := os.WriteFile(filepath.Join(big, a.FileName()), a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p := planNow(t, b.Root, 0, pkgstore.Options{})
	if d, _ := p.Decision(pkgstore.MustParseIdent(depOld)); d.Action != retention.Keep {
		t.Errorf("%s %s %v: the fresh archive in the symlinked cache names it", d.Action, depOld, d.Reasons)
	}
	if p.InstallWait == "" {
		t.Errorf("no install wait; fetched %+v", p.Inventory.Fetched)
	}
}

// A symlink named *.hart in the artifact cache is an archive to Habitat
// (install.rs is_artifact_cached: Path::is_file follows it); hab-gc does
// not read through it. Fresh, it makes every removal wait unless its name
// is the archive of an installed release.
func TestSymlinkedArchiveInCache(t *testing.T) {
	testtool.NeedSymlinks(t)
	for _, tc := range []struct {
		name     string
		link     string // the link's name in the cache
		to       string // "outside": an archive elsewhere; "dir": a directory in the cache; "none": nothing
		ahead    time.Duration
		wantWait bool
		also     string // another release installed
	}{
		{"fresh, to an archive elsewhere", storetest.Archive{Ident: libIdent}.FileName(), "outside", 0, true, ""},
		{"fresh, to an archive in the cache", storetest.Archive{Ident: libIdent}.FileName(), "inside", 0, true, ""},
		{"fresh, named after an installed release", storetest.Archive{Ident: depNew}.FileName(), "outside", 0, false, ""},
		// Origins and names may hold hyphens: this name is the archive
		// name of my/org-app (installed) and of my-org/app (not), which
		// Habitat, installing it, finds cached through this link.
		{"fresh, named after an installed release and one not installed", storetest.Archive{Ident: "my-org/app/1.0/20240101000000"}.FileName(), "outside", 0, true, "my/org-app/1.0/20240101000000"},
		{"two hours old", storetest.Archive{Ident: libIdent}.FileName(), "outside", 2 * time.Hour, false, ""},
		{"to a directory", storetest.Archive{Ident: libIdent}.FileName(), "dir", 0, false, ""},
		{"to nothing", storetest.Archive{Ident: libIdent}.FileName(), "none", 0, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			oldPkg(b, depOld)
			oldPkg(b, depNew)
			if tc.also != "" {
				oldPkg(b, tc.also)
			}
			cache := b.Path(pkgstore.ArtifactCacheDir)
			if err := os.MkdirAll(cache, 0o755); err != nil {
				t.Fatal(err)
			}
			a := storetest.Archive{Ident: libIdent, Deps: []string{depOld}}
			var to string
			switch tc.to {
			case "outside":
				to = filepath.Join(testtool.TempDir(t), "lib.hart")
			case "inside":
				to = filepath.Join(cache, ".lib.hart") // a hidden name: not itself an archive to Habitat
			case "dir":
				to = filepath.Join(cache, "dir")
				if err := os.Mkdir(to, 0o755); err != nil {
					t.Fatal(err)
				}
			case "none":
				to = filepath.Join(cache, "gone.hart.part")
			}
			if tc.to == "outside" || tc.to == "inside" {
				if err := os.WriteFile(to, a.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			target := to
			if tc.to != "outside" {
				target = filepath.Base(to) // relative: the scan follows it inside the cache only
			}
			if err := os.Symlink(target, filepath.Join(cache, tc.link)); err != nil {
				t.Fatal(err)
			}
			p := planNow(t, b.Root, tc.ahead, pkgstore.Options{})
			if got := p.InstallWait != ""; got != tc.wantWait {
				t.Errorf("install wait %q, want one: %v (fetched %+v)", p.InstallWait, tc.wantWait, p.Inventory.Fetched)
			}
			if d, _ := p.Decision(pkgstore.MustParseIdent(depOld)); (d.Action == retention.Keep) != tc.wantWait {
				t.Errorf("%s %s %v", d.Action, depOld, d.Reasons)
			}
		})
	}
}
