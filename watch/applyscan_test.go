package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestPropertyApplyScan checks that the scans a purge's Apply makes under
// the store's lock (watcher.applyScan, Apply's Rescanner) read the store
// as a full Scan does, also right after changes whose events the watcher
// has not read yet: its sync reads every event queued before it. Random
// stores and changes as TestPropertyIncrementalPlan's; after each plan,
// one to three more changes (and touches of the lock file someone else
// makes among them), then, with no event read, the lock, the purge's scan
// and a full Scan, compared.
func TestPropertyApplyScan(t *testing.T) {
	const steps = 12
	incremental, total := 0, 0
	forEachSeed(t, 6, 3, func(t *testing.T, seed uint64) {
		inc, n := propertyApplyScan(t, seed, steps)
		incremental, total = incremental+inc, total+n
	})
	// Most purges' scans must be incremental, or this checks only Scan.
	if incremental < total/2 {
		t.Fatalf("%d of %d of Apply's scans were made incrementally", incremental, total)
	}
}

func propertyApplyScan(t *testing.T, seed uint64, steps int) (incremental, total int) {
	ctx := context.Background()
	s, store := newIncStore(t, seed, 36)
	rng := s.rng
	pol := retention.Policy{KeepLatest: 1 + rng.IntN(3), MinAge: retention.NoMinAge, AllowDamaged: true}
	w := propertyWatcher(t, store, pol)
	for step := range steps {
		what := s.change()
		handleChanges(t, w)
		now := time.Now()
		scan := pkgstore.Options{Now: now, Target: storetest.DefaultTarget, Workers: 1 + rng.IntN(4)}
		plan, err := w.plan(ctx, pol, now, scan)
		if err != nil {
			continue
		}
		// Changes the watcher has not read when Apply scans, and now and
		// then an attribute change of the lock file among them, made by
		// someone else (a touch): no mark of the sync's.
		lock := filepath.Join(w.store, pkgstore.LockFile)
		for i := range 1 + rng.IntN(3) {
			if i > 0 || rng.IntN(2) == 0 {
				if err := os.Chtimes(lock, now, now); err == nil {
					what += "; then the lock file touched"
				}
			}
			if c := s.change(); c != "apply" {
				what += "; then " + c
			}
		}
		unlock, err := store.Lock(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		inv, ierr := w.applyScan(plan)(ctx, scan)
		if ierr == nil && !w.reads.full {
			incremental++
		}
		total++
		full, ferr := store.Scan(ctx, scan)
		unlock()
		if (ierr == nil) != (ferr == nil) || (ierr != nil && ierr.Error() != ferr.Error()) {
			t.Fatalf("step %d (%s): the purge's scan's error %v, a full Scan's %v", step, what, ierr, ferr)
		}
		if ierr != nil {
			continue
		}
		if a, b := inventoryView(inv), inventoryView(full); !reflect.DeepEqual(a, b) {
			t.Fatalf("step %d (%s): the inventories differ:\npurge's scan %+v\nfull Scan    %+v", step, what, a, b)
		}
	}
	return incremental, total
}

// TestApplyScanWhenUnsure: a purge's scan reads the whole store, and says
// so to the next plan, when the watcher cannot vouch for what changed: an
// earlier sync that never saw its event (a stale one may still come), the
// lock not held (no mark can be made), or polling; a cancelled context
// ends the sync at once, with the context's error.
func TestApplyScanWhenUnsure(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		unsure func(w *watcher)
		lock   bool
	}{
		{"an earlier sync lost", func(w *watcher) { w.syncLost = w.fsw }, true},
		{"the lock not held", func(*watcher) {}, false},
		{"polling", func(w *watcher) { w.fallBack(errors.New("test")) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Add(storetest.Release{Ident: "core/a/1/20200101000000"})
			store, err := pkgstore.Open(b.Root)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
			w := newWatcher(Options{Store: store, Policy: pol, All: true})
			defer w.close()
			scan := pkgstore.Options{Now: time.Now(), Target: storetest.DefaultTarget}
			plan, err := w.plan(ctx, pol, scan.Now, scan)
			if err != nil {
				t.Fatal(err)
			}
			b.Add(storetest.Release{Ident: "core/a/2/20200201000000"}) // its events unread
			tc.unsure(w)
			if tc.lock {
				unlock, err := store.Lock(ctx, time.Second)
				if err != nil {
					t.Fatal(err)
				}
				defer unlock()
			}
			inv, err := w.applyScan(plan)(ctx, scan)
			if err != nil {
				t.Fatal(err)
			}
			if inv.Installed(pkgstore.MustParseIdent("core/a/2/20200201000000")) == nil {
				t.Fatal("the purge's scan missed a release installed since the plan")
			}
			if !w.reads.full && !w.fallback {
				t.Error("the next plan is not told to read the whole store")
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		b := storetest.New(t)
		store, err := pkgstore.Open(b.Root)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		w := newWatcher(Options{Store: store, Policy: retention.Policy{KeepLatest: 1}, All: true})
		defer w.close()
		unlock, err := store.Lock(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := w.sync(cctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("sync with a cancelled context: %v", err)
		}
	})
}
