package retention_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// openingFinder could not see everything (its Found has a Probe), and
// its probe opens each directory it is asked about, as Windows' check
// for files held open does (runroots): one it cannot open cannot be
// vouched for, and fails the probe.
type openingFinder struct{ store string }

func (f openingFinder) FindRoots(context.Context, *pkgstore.Inventory) (retention.Found, error) {
	return retention.Found{Source: "opening", Summary: "saw part", Probe: f.probe}, nil
}

func (f openingFinder) probe(_ context.Context, dirs []retention.ProbeDir) (retention.Probed, error) {
	for _, d := range dirs {
		dir, err := os.Open(filepath.Join(f.store, filepath.FromSlash(d.Dir())))
		if err == nil {
			_, err = dir.Readdirnames(-1)
			dir.Close()
		}
		if err != nil {
			return retention.Probed{}, fmt.Errorf("%s could not be checked: %w", d.Ident, err)
		}
	}
	return retention.Probed{Summary: "checked"}, nil
}

// TestApplyProbesTheListedRemovals: Apply's check under the lock asks the
// finders' probes about the plan's removals that the store still lists,
// not about one uninstalled while it waited for the lock (gone) nor one
// whose directory became a file (left alone): those are never hidden,
// and a probe that cannot open them (Windows') refused the whole run,
// removing nothing.
func TestApplyProbesTheListedRemovals(t *testing.T) {
	const (
		a1 = "core/a/1.0.0/20200101000000"
		a2 = "core/a/2.0.0/20210101000000"
		b1 = "core/b/1.0.0/20200101000000"
		b2 = "core/b/2.0.0/20210101000000"
		c1 = "core/c/1.0.0/20200101000000"
		c2 = "core/c/2.0.0/20210101000000"
	)
	for _, how := range []struct {
		name string
		plan func(context.Context, *pkgstore.Store, retention.Policy, time.Time, ...pkgstore.Options) (*retention.Plan, error)
	}{{"PlanToApply", retention.PlanToApply}, {"PlanStore", retention.PlanStore}} {
		t.Run(how.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg(a1).Pkg(a2).Pkg(b1).Pkg(b2).Pkg(c1).Pkg(c2)
			s := storetest.Open(t, b.Root)
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge,
				RootFinders: []retention.RootFinder{openingFinder{store: filepath.Join(b.Root, filepath.FromSlash(pkgstore.StoreDir))}}}
			p, err := how.plan(context.Background(), s, pol, now, pkgstore.Options{Target: "x86_64-linux"})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(p.Removals()); n != 3 {
				t.Fatalf("the plan removes %d releases, want 3", n)
			}
			// Meanwhile, b1 is uninstalled and c1's directory becomes a file.
			if err := testtool.RemoveAll(b.PkgPath(b1)); err != nil {
				t.Fatal(err)
			}
			if err := testtool.RemoveAll(b.PkgPath(c1)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(b.PkgPath(c1), []byte("not a release\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := p.Apply(context.Background(), s, fast)
			if err != nil {
				t.Fatalf("Apply: %v; want %s removed, %s gone, %s kept", err, a1, b1, c1)
			}
			if res.Removed != 1 || res.Gone != 1 || res.Kept != 1 {
				t.Fatalf("removed %d, gone %d, kept %d: %+v; want 1 each", res.Removed, res.Gone, res.Kept, res.Outcomes)
			}
			if _, err := os.Stat(b.PkgPath(a1)); !os.IsNotExist(err) {
				t.Fatalf("%s: %v; want it removed", a1, err)
			}
			if fi, err := os.Stat(b.PkgPath(c1)); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("%s: %v; want the file left alone", c1, err)
			}
		})
	}
}
