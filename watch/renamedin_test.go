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

// TestPurgeKeepsWhatAReleaseRenamedInSinceThePlanNeeds: a release renamed
// into place (as Habitat installs, habitat-sh/habitat
// components/common/src/command/package/install.rs: unpacked into a temp
// directory, renamed to ORIGIN/NAME/VERSION/RELEASE; its TDEPS found
// installed before) after the purge's plan keeps the old release it needs
// that the plan removes, whether it comes before Apply's revalidation or
// during the settle pause after the hide, and wherever it lands: a
// version directory already there, a new version, a new name directory, a
// new origin. Apply reads the whole store again under the lock; none of
// these events is read by the watcher's loop before it.
func TestPurgeKeepsWhatAReleaseRenamedInSinceThePlanNeeds(t *testing.T) {
	const (
		lib1 = "core/lib/1.0/20200101000000"
		lib2 = "core/lib/2.0/20200201000000"
		app1 = "core/app/1.0/20200101000000"
	)
	for _, where := range []struct{ name, ident string }{
		{"an existing version directory", "core/app/1.0/20200301000000"},
		{"a new version directory", "core/app/2.0/20200301000000"},
		{"a new name directory", "core/tool/1.0/20200301000000"},
		{"a new origin", "other/app/1.0/20200301000000"},
	} {
		for _, pause := range []bool{false, true} {
			when := "before the revalidation"
			if pause {
				when = "during the settle pause"
			}
			t.Run(where.name+", "+when, func(t *testing.T) {
				ctx := context.Background()
				b := storetest.New(t)
				b.Mkdir(pkgstore.SpecsDir)
				b.Add(storetest.Release{Ident: lib1}, storetest.Release{Ident: lib2}, storetest.Release{Ident: app1})
				elsewhere := storetest.At(t, filepath.Join(b.Root, "elsewhere"))
				elsewhere.Add(storetest.Release{Ident: where.ident, Deps: []string{lib1}, TDeps: []string{lib1}})
				rename := func() error {
					if err := os.MkdirAll(filepath.Dir(b.PkgPath(where.ident)), 0o755); err != nil {
						return err
					}
					return os.Rename(elsewhere.PkgPath(where.ident), b.PkgPath(where.ident))
				}
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
				// As purge: the plan, then Apply.
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
				settle := retention.NoSettle
				done := make(chan error, 1)
				if pause {
					settle = 500 * time.Millisecond
					go func() {
						for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
							if _, err := os.Lstat(b.PkgPath(lib1)); os.IsNotExist(err) {
								break // hidden
							}
							if time.Now().After(deadline) {
								done <- os.ErrDeadlineExceeded
								return
							}
						}
						done <- rename()
					}()
				} else {
					done <- rename()
				}
				res, err := plan.Apply(ctx, store, retention.ApplyOptions{Settle: settle, Now: time.Now})
				if rerr := <-done; rerr != nil {
					t.Fatalf("renaming %s into place: %v", where.ident, rerr)
				}
				if err != nil {
					t.Fatalf("Apply: %v", err)
				}
				if _, err := os.Lstat(b.PkgPath(lib1)); err != nil {
					t.Fatalf("%s, needed by %s renamed into place %s, was deleted: removed %d, kept %d (%v)",
						lib1, where.ident, when, res.Removed, res.Kept, err)
				}
			})
		}
	}
}
