package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestPurgeKeepsWhatAReleaseInADotDirectoryNeeds: Habitat lists every
// ORIGIN/NAME/VERSION/RELEASE directory whatever its names, and so does
// the scan: a version, name or origin directory whose name starts with a
// dot holds releases like any other. A release renamed into one that was
// there before the watcher started, after the purge's plan, keeps the
// old release it needs, and the next plan sees it.
func TestPurgeKeepsWhatAReleaseInADotDirectoryNeeds(t *testing.T) {
	const (
		lib1 = "core/lib/1.0/20200101000000"
		lib2 = "core/lib/2.0/20200201000000"
		app1 = "core/app/1.0/20200101000000"
	)
	for _, ident := range []string{"core/app/.hidden/20200301000000", "core/.app/1.0/20200301000000", ".other/app/1.0/20200301000000"} {
		t.Run(ident, func(t *testing.T) {
			ctx := context.Background()
			b := storetest.New(t)
			b.Mkdir(pkgstore.SpecsDir)
			b.Add(storetest.Release{Ident: lib1}, storetest.Release{Ident: lib2}, storetest.Release{Ident: app1})
			b.Mkdir(filepath.Dir("hab/pkgs/" + ident)) // there before the watch
			elsewhere := storetest.At(t, filepath.Join(b.Root, "elsewhere"))
			elsewhere.Add(storetest.Release{Ident: ident, Deps: []string{lib1}, TDeps: []string{lib1}})
			store, err := pkgstore.Open(b.Root)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
			w := newWatcher(Options{Store: store, Policy: pol, All: true, NoHistory: true})
			defer w.close()
			if w.fsw == nil {
				t.Fatal("no inotify")
			}
			pol, _ = w.policyFor(pkgstore.MustParseIdent("core/lib"), TriggerUpdate)
			now := time.Now()
			scan := pkgstore.Options{Now: now, InstallWindow: w.o.installWindow()}
			plan, err := retention.PlanStore(ctx, store, pol, now, scan)
			if err != nil {
				t.Fatal(err)
			}
			if rs := plan.Removals(); len(rs) != 1 || rs[0].Release.Ident.String() != lib1 {
				t.Fatalf("the plan removes %v, want %s", rs, lib1)
			}
			if err := os.Rename(elsewhere.PkgPath(ident), b.PkgPath(ident)); err != nil {
				t.Fatal(err)
			}
			res, err := plan.Apply(ctx, store, retention.ApplyOptions{Settle: retention.NoSettle, Now: time.Now})
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if _, err := os.Lstat(b.PkgPath(lib1)); err != nil {
				t.Fatalf("%s, needed by %s renamed into place after the plan, was deleted: removed %d, kept %d (%v)",
					lib1, ident, res.Removed, res.Kept, err)
			}
			// The next plan sees it too.
			next, err := retention.PlanStore(ctx, store, pol, now, scan)
			if err != nil {
				t.Fatal(err)
			}
			if next.Inventory.Installed(pkgstore.MustParseIdent(ident)) == nil {
				t.Fatalf("the next plan does not see %s", ident)
			}
		})
	}
}
