package retention_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestSymlinkedCacheFetchedArchive (issue 20, adversary): an artifact
// cache moved to a bigger disk and linked back (FS_ROOT/hab/cache/artifacts
// a symlink, which Habitat follows) still shows the archives being
// installed: a fresh one of a release that is not installed makes every
// removal wait, and what it names is kept (hab-gc only reads there; the
// cache clean-up still refuses such a cache).
func TestSymlinkedCacheFetchedArchive(t *testing.T) {
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	big := filepath.Join(t.TempDir(), "artifacts")
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
