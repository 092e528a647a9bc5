package prune_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

const (
	gib      = 1 << 30
	archive0 = "core-redis-5.0.0-20200101000000-x86_64-linux.hart"
	archive1 = "core-redis-5.0.1-20200201000000-x86_64-linux.hart"
	archive4 = "core-redis-6.2.4-20210901000000-x86_64-linux.hart" // of an installed release the plan removes
)

// keepOne is the policy of these tests: the newest release of each
// package, young ones too (the store was written a moment ago).
var keepOne = retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}

// oldArchives is the scan of these tests: the cache's archives, written a
// moment ago, count as downloaded long ago (their install window passed).
var oldArchives = pkgstore.Options{InstallWindow: time.Nanosecond}

// archivesLeft lists the cache's files.
func archivesLeft(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, artifactcache.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// removedArchives lists the archives Apply removed.
func removedArchives(res *prune.Result) []string {
	var out []string
	for _, o := range res.Cache {
		if o.Status == retention.StatusRemoved {
			out = append(out, o.File)
		}
	}
	return out
}

// TestPlanCacheWithoutPressure: `hab-gc run --cache` without limits runs
// the whole plan, and the archive of a release the run removes goes with
// it (under pressure it stays: TestPlanPressure), as do those of releases
// that are not installed; no free space is read.
func TestPlanCacheWithoutPressure(t *testing.T) {
	b := pressureStore(t, true)
	store := storetest.Open(t, b.Root)
	reads := 0
	free := func() (pressure.Space, error) { reads++; return pressure.Space{Avail: gib, Total: 100 * gib}, nil }
	run, err := prune.Plan(t.Context(), store, time.Now(), prune.Options{Policy: keepOne, Scan: oldArchives,
		Cache: &artifactcache.Options{KeepLatest: retention.KeepNone}, Free: free})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if run.Verdict != nil || run.Missing != 0 || run.CacheErr != nil || len(run.Cache) != 3 {
		t.Fatalf("verdict %+v, missing %d, cache error %v, %d archives planned", run.Verdict, run.Missing, run.CacheErr, len(run.Cache))
	}
	res, err := run.Apply(t.Context(), store, retention.ApplyOptions{Settle: retention.NoSettle})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := removedArchives(res), []string{archive0, archive1, archive4}; !slices.Equal(got, want) {
		t.Errorf("archives removed %v, want %v", got, want)
	}
	if res.Result.Removed != 2 || res.FreeAfter != -1 || res.Missing != 0 || reads != 0 {
		t.Errorf("releases removed %d (want 2), free after %d (want -1), missing %d, free read %d times (want 0)", res.Result.Removed, res.FreeAfter, res.Missing, reads)
	}
	if left := archivesLeft(t, b.Root); len(left) != 0 {
		t.Errorf("archives left %v", left)
	}
}

// TestPlanWithoutCacheOption: without Options.Cache the cache is neither
// read nor touched.
func TestPlanWithoutCacheOption(t *testing.T) {
	b := pressureStore(t, true)
	store := storetest.Open(t, b.Root)
	run, err := prune.Plan(t.Context(), store, time.Now(), prune.Options{Policy: keepOne, Scan: oldArchives})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Apply(t.Context(), store, retention.ApplyOptions{Settle: retention.NoSettle})
	if err != nil {
		t.Fatal(err)
	}
	if run.Cache != nil || run.CacheErr != nil || run.CacheUnreadable() || res.Cache != nil || res.Result.Removed != 2 {
		t.Errorf("cache %+v (error %v), outcomes %+v, releases removed %d (want 2)", run.Cache, run.CacheErr, res.Cache, res.Result.Removed)
	}
	if left := archivesLeft(t, b.Root); len(left) != 3 {
		t.Errorf("archives left %v, want all three", left)
	}
}

// TestCacheNotCleaned: a cache that is not there is nothing to clean; one
// refused (a symlink) or unreadable is not cleaned and says so
// (CacheUnreadable); the store's part goes ahead in each case.
func TestCacheNotCleaned(t *testing.T) {
	for _, tc := range []struct {
		name       string
		make       func(t *testing.T, b *storetest.Builder)
		wantErr    error
		unreadable bool
	}{
		{"none", func(*testing.T, *storetest.Builder) {}, artifactcache.ErrNoCache, false},
		{"a symlink", func(t *testing.T, b *storetest.Builder) {
			b.Mkdir("elsewhere")
			b.Mkdir("hab/cache")
			b.Symlink(filepath.Join(b.Root, "elsewhere"), artifactcache.Dir)
		}, artifactcache.ErrRefused, true},
		{"unreadable", func(t *testing.T, b *storetest.Builder) {
			if os.Geteuid() == 0 {
				t.Skip("root reads a directory of mode 000")
			}
			b.Mkdir(artifactcache.Dir)
			b.Chmod(artifactcache.Dir, 0)
			t.Cleanup(func() { os.Chmod(filepath.Join(b.Root, artifactcache.Dir), 0o755) })
		}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pressureStore(t, false)
			tc.make(t, b)
			store := storetest.Open(t, b.Root)
			run, err := prune.Plan(t.Context(), store, time.Now(), prune.Options{Policy: keepOne, Cache: &artifactcache.Options{}})
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			if run.CacheErr == nil || (tc.wantErr != nil && !errors.Is(run.CacheErr, tc.wantErr)) || run.CacheUnreadable() != tc.unreadable {
				t.Errorf("cache error %v (want %v), unreadable %v (want %v)", run.CacheErr, tc.wantErr, run.CacheUnreadable(), tc.unreadable)
			}
			res, err := run.Apply(t.Context(), store, retention.ApplyOptions{Settle: retention.NoSettle})
			if err != nil || res.Result.Removed != 2 || res.Cache != nil {
				t.Errorf("Apply: %v, %d releases removed (want 2), cache outcomes %+v", err, res.Result.Removed, res.Cache)
			}
		})
	}
}

// TestPlanErrorKeepsThePlan: when the store's plan was made but pressure
// could not be planned, the error is a *PlanError with that plan (a
// scheduler journals it), wrapping the cause, and nothing is removed.
func TestPlanErrorKeepsThePlan(t *testing.T) {
	unreadable := errors.New("statfs failed")
	two := pressure.Size{Bytes: 2 * gib}
	for _, tc := range []struct {
		name   string
		limits pressure.Limits
		free   pressure.FreeFunc
		want   error
	}{
		{"free space unreadable", pressure.Limits{MinFree: two, MaxFree: two}, func() (pressure.Space, error) { return pressure.Space{}, unreadable }, unreadable},
		{"bad limits", pressure.Limits{MinFree: two, MaxFree: pressure.Size{Percent: 101}}, func() (pressure.Space, error) { return pressure.Space{Avail: gib, Total: 100 * gib}, nil }, pressure.ErrBadLimits},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pressureStore(t, true)
			store := storetest.Open(t, b.Root)
			run, err := prune.Plan(t.Context(), store, time.Now(), prune.Options{Policy: keepOne, Scan: oldArchives, Limits: &tc.limits,
				Cache: &artifactcache.Options{}, Free: tc.free})
			var pe *prune.PlanError
			if run != nil || !errors.As(err, &pe) || !errors.Is(err, tc.want) || pe.Plan == nil || len(pe.Plan.Removals()) != 2 {
				t.Fatalf("Plan: %v, %v; want a *PlanError wrapping %v with the store's plan (two removals)", run, err, tc.want)
			}
			if _, err := os.Lstat(b.PkgPath("core/redis/6.2.4/20210901000000")); err != nil {
				t.Errorf("a release is gone: %v", err)
			}
			if left := archivesLeft(t, b.Root); len(left) != 3 {
				t.Errorf("archives left %v, want all three", left)
			}
		})
	}
	// The store's own errors are PlanStore's, not a PlanError.
	b := pressureStore(t, false)
	store := storetest.Open(t, b.Root)
	_, err := prune.Plan(t.Context(), store, time.Now(), prune.Options{})
	var pe *prune.PlanError
	if !errors.Is(err, retention.ErrEmptyPolicy) || errors.As(err, &pe) {
		t.Errorf("the zero policy: %v, want retention.ErrEmptyPolicy alone", err)
	}
}

// TestStillMissing: under pressure, when not enough can be freed, the dry
// run says what the chosen removals leave missing and names the largest
// kept releases (measured: Scan.Sizes); after Apply, what is missing is
// measured on the free space read again. A refused Apply removes nothing,
// leaves the archives, and what is missing stays the plan's.
func TestStillMissing(t *testing.T) {
	two := pressure.Size{Bytes: 2 * gib}
	limits := pressure.Limits{MinFree: two, MaxFree: two}
	newest := "core/redis/6.2.6/20220101000000"
	for _, tc := range []struct {
		name    string
		sizes   bool
		refused bool
	}{
		{"measured", true, false},
		{"unmeasured", false, false},
		{"refused", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pressureStore(t, true)
			store := storetest.Open(t, b.Root)
			avail := []int64{gib, gib + gib/2} // before, after
			free := func() (pressure.Space, error) {
				a := avail[0]
				if len(avail) > 1 {
					avail = avail[1:]
				}
				return pressure.Space{Avail: a, Total: 100 * gib}, nil
			}
			scan := oldArchives
			scan.Sizes = tc.sizes
			run, err := prune.Plan(t.Context(), store, time.Now(), prune.Options{Policy: keepOne, Scan: scan, Limits: &limits,
				Cache: &artifactcache.Options{}, Free: free})
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			if run.Verdict == nil || !run.Verdict.Under || run.Missing != run.Verdict.Short || run.Missing < gib-1<<20 {
				t.Fatalf("verdict %+v, missing %d: want under pressure, about 1 GiB missing", run.Verdict, run.Missing)
			}
			wantLargest := []string{}
			if tc.sizes {
				wantLargest = []string{newest}
			}
			if got := idents(run.LargestKept); !slices.Equal(got, wantLargest) {
				t.Errorf("largest kept %v, want %v", got, wantLargest)
			}
			opts := retention.ApplyOptions{Settle: retention.NoSettle}
			if tc.refused {
				unlock, err := storetest.Open(t, b.Root).Lock(t.Context(), 0)
				if err != nil {
					t.Fatal(err)
				}
				defer unlock()
				opts.LockTimeout = retention.NoLockWait
			}
			res, err := run.Apply(t.Context(), store, opts)
			if tc.refused {
				if !errors.Is(err, pkgstore.ErrLocked) || res.Result.Applied() || res.Cache != nil || res.Missing != run.Missing {
					t.Fatalf("refused Apply: %v, applied %v, cache outcomes %+v, missing %d (want the plan's %d)", err, res.Result.Applied(), res.Cache, res.Missing, run.Missing)
				}
				if left := archivesLeft(t, b.Root); len(left) != 3 {
					t.Errorf("archives left %v, want all three", left)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.FreeAfter != gib+gib/2 || res.Missing != gib/2 || !slices.Equal(idents(res.LargestKept), wantLargest) {
				t.Errorf("free after %d, missing %d (want %d), largest kept %v (want %v)", res.FreeAfter, res.Missing, int64(gib/2), idents(res.LargestKept), wantLargest)
			}
			if res.Result.Removed != 2 || len(removedArchives(res)) != 1 {
				t.Errorf("%d releases and archives %v removed; want 2 and one", res.Result.Removed, removedArchives(res))
			}
		})
	}
}

func idents(ds []retention.Decision) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Release.Ident.String())
	}
	return out
}

// TestApplyLockedNeedsTheLock: with ApplyOptions.Locked (the scheduler
// holds the store's lock), the whole run goes ahead under the caller's
// lock, the cache's removals too; without the lock held, Apply refuses and
// nothing goes.
func TestApplyLockedNeedsTheLock(t *testing.T) {
	for _, held := range []bool{true, false} {
		b := pressureStore(t, true)
		store := storetest.Open(t, b.Root)
		run, err := prune.Plan(t.Context(), store, time.Now(), prune.Options{Policy: keepOne, Scan: oldArchives,
			Cache: &artifactcache.Options{KeepLatest: retention.KeepNone}})
		if err != nil {
			t.Fatal(err)
		}
		defer run.Close()
		if held {
			unlock, err := store.Lock(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()
		}
		res, err := run.Apply(t.Context(), store, retention.ApplyOptions{Locked: true, Settle: retention.NoSettle})
		switch {
		case held && (err != nil || res.Result.Removed != 2 || len(removedArchives(res)) != 3):
			t.Errorf("lock held: %v, %d releases and archives %v removed; want 2 and 3", err, res.Result.Removed, removedArchives(res))
		case !held && (err == nil || res.Result.Applied() || res.Cache != nil):
			t.Errorf("lock not held: %v, applied %v, cache outcomes %+v; want a refusal", err, res.Result.Applied(), res.Cache)
		}
	}
}

// TestApplyNilRun: a nil Run is refused as a nil plan is.
func TestApplyNilRun(t *testing.T) {
	store := storetest.Open(t, pressureStore(t, false).Root)
	var run *prune.Run
	res, err := run.Apply(t.Context(), store)
	if !errors.Is(err, retention.ErrNoPlan) || res == nil || res.Result == nil || res.FreeAfter != -1 {
		t.Errorf("nil run: %+v, %v; want retention.ErrNoPlan and a Result", res, err)
	}
	if run.Close() != nil || run.CacheUnreadable() {
		t.Error("a nil run's Close or CacheUnreadable")
	}
}

// TestArchivesStayWhenApplyFails: the cache's archives go only after the
// store's Apply succeeded; Apply refusing (here: given another store than
// the plan's, retention.ErrOtherStore) leaves every archive, though the
// lock would be free for them.
func TestArchivesStayWhenApplyFails(t *testing.T) {
	b := pressureStore(t, true)
	store := storetest.Open(t, b.Root)
	run, err := prune.Plan(t.Context(), store, time.Now(), prune.Options{Policy: keepOne, Scan: oldArchives,
		Cache: &artifactcache.Options{KeepLatest: retention.KeepNone}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	other := storetest.Open(t, pressureStore(t, false).Root)
	res, err := run.Apply(t.Context(), other, retention.ApplyOptions{Settle: retention.NoSettle})
	if !errors.Is(err, retention.ErrOtherStore) || res.Result.Applied() || res.Cache != nil {
		t.Fatalf("Apply on another store: %v, applied %v, cache outcomes %+v; want retention.ErrOtherStore and nothing done", err, res.Result.Applied(), res.Cache)
	}
	if left := archivesLeft(t, b.Root); len(left) != 3 {
		t.Errorf("archives left %v, want all three", left)
	}
}
