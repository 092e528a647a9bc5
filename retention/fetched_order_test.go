package retention_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestFetchedArchiveTargetAfterTDEPS: hab-plan-build
// archives the release directory with `tar -cf` (hab-plan-build-linux.sh
// _generate_artifact), in directory order, so TARGET may come after TDEPS.
// A fresh archive of a release that is not installed makes removals wait,
// and what it names is kept, whatever the order of its metadata files
// (Habitat reads TARGET too: install.rs verify_artifact).
func TestFetchedArchiveTargetAfterTDEPS(t *testing.T) {
	for _, order := range []string{"TARGET first", "TARGET after TDEPS"} {
		t.Run(order, func(t *testing.T) {
			b := storetest.New(t)
			oldPkg(b, depOld)
			oldPkg(b, depNew)
			es := storetest.Archive{Ident: libIdent, Deps: []string{depOld}, Payload: []string{"lib/liblib.so"}}.Entries()
			if order != "TARGET first" {
				i := slices.IndexFunc(es, func(e storetest.ArchiveEntry) bool { return strings.HasSuffix(e.Name, "/TARGET") })
				target := es[i]
				es = append(es[:i:i], es[i+1:]...)
				es = append(es, target)
			}
			dir := b.Path(pkgstore.ArtifactCacheDir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "core-lib-1.0-20261201000000-x86_64-linux.hart"), storetest.HartEntries(es...), 0o644); err != nil {
				t.Fatal(err)
			}
			p := planNow(t, b.Root, 0, pkgstore.Options{})
			if d, _ := p.Decision(pkgstore.MustParseIdent(depOld)); d.Action != retention.Keep {
				t.Errorf("%s %s %v: the fresh archive of %s names it", d.Action, depOld, d.Reasons, libIdent)
			}
			if p.InstallWait == "" {
				t.Errorf("no install wait; fetched %+v", p.Inventory.Fetched)
			}
		})
	}
}
