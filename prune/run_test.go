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

// removedArchives lists the archives the run removed.
func removedArchives(o *prune.Outcome) []string {
	var out []string
	for _, f := range o.CacheDone {
		if f.Status == retention.StatusRemoved {
			out = append(out, f.File)
		}
	}
	return out
}

// TestRunCacheWithoutPressure: `hab-gc run --cache` without limits runs
// the whole plan, and the archive of a release the run removes goes with
// it (under pressure it stays: TestRunPressure), as do those of releases
// that are not installed; no free space is read.
func TestRunCacheWithoutPressure(t *testing.T) {
	t.Parallel()
	b := pressureStore(t, true)
	store := storetest.Open(t, b.Root)
	reads := 0
	free := func() (pressure.Space, error) { reads++; return pressure.Space{Avail: gib, Total: 100 * gib}, nil }
	o := prune.Options{Policy: keepOne, Scan: oldArchives, Cache: &artifactcache.Options{KeepLatest: retention.KeepNone}, Free: free, Settle: retention.NoSettle}
	dry := o
	dry.DryRun = true
	plan, err := prune.Run(t.Context(), store, dry)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Verdict != nil || plan.Missing != 0 || plan.CacheErr != nil || len(plan.Cache) != 3 || plan.Result != nil || plan.CacheDone != nil {
		t.Fatalf("dry run: verdict %+v, missing %d, cache error %v, %d archives planned, result %+v", plan.Verdict, plan.Missing, plan.CacheErr, len(plan.Cache), plan.Result)
	}
	res, err := prune.Run(t.Context(), store, o)
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

// TestRunWithoutCacheOption: without Options.Cache the cache is neither
// read nor touched.
func TestRunWithoutCacheOption(t *testing.T) {
	t.Parallel()
	b := pressureStore(t, true)
	store := storetest.Open(t, b.Root)
	res, err := prune.Run(t.Context(), store, prune.Options{Policy: keepOne, Scan: oldArchives, Settle: retention.NoSettle})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cache != nil || res.CacheErr != nil || res.CacheUnreadable() || res.CacheDone != nil || res.Result.Removed != 2 {
		t.Errorf("cache %+v (error %v), outcomes %+v, releases removed %d (want 2)", res.Cache, res.CacheErr, res.CacheDone, res.Result.Removed)
	}
	if left := archivesLeft(t, b.Root); len(left) != 3 {
		t.Errorf("archives left %v, want all three", left)
	}
}

// TestCacheNotCleaned: a cache that is not there is nothing to clean; one
// refused (a symlink) or unreadable is not cleaned and says so
// (CacheUnreadable); the store's part goes ahead in each case.
func TestCacheNotCleaned(t *testing.T) {
	t.Parallel()
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
			res, err := prune.Run(t.Context(), store, prune.Options{Policy: keepOne, Cache: &artifactcache.Options{}, Settle: retention.NoSettle})
			if res.CacheErr == nil || (tc.wantErr != nil && !errors.Is(res.CacheErr, tc.wantErr)) || res.CacheUnreadable() != tc.unreadable {
				t.Errorf("cache error %v (want %v), unreadable %v (want %v)", res.CacheErr, tc.wantErr, res.CacheUnreadable(), tc.unreadable)
			}
			if err != nil || res.Result.Removed != 2 || res.CacheDone != nil || false {
				t.Errorf("run: %v, %d releases removed (want 2), cache outcomes %+v", err, res.Result.Removed, res.CacheDone)
			}
		})
	}
}

// TestErrorAfterThePlan: when the store's plan was made but pressure
// could not be planned, the outcome keeps that plan (a scheduler journals
// it), the error wraps the cause, and nothing is removed.
func TestErrorAfterThePlan(t *testing.T) {
	t.Parallel()
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
			res, err := prune.Run(t.Context(), store, prune.Options{Policy: keepOne, Scan: oldArchives, Limits: &tc.limits,
				Cache: &artifactcache.Options{}, Free: tc.free})
			if !errors.Is(err, tc.want) || res.Plan == nil || len(res.Plan.Removals()) != 2 || res.Result != nil {
				t.Fatalf("run: %+v, %v; want an error wrapping %v with the store's plan (two removals)", res, err, tc.want)
			}
			if _, err := os.Lstat(b.PkgPath("core/redis/6.2.4/20210901000000")); err != nil {
				t.Errorf("a release is gone: %v", err)
			}
			if left := archivesLeft(t, b.Root); len(left) != 3 {
				t.Errorf("archives left %v, want all three", left)
			}
		})
	}
	b := pressureStore(t, false)
	store := storetest.Open(t, b.Root)
	if res, err := prune.Run(t.Context(), store, prune.Options{}); !errors.Is(err, retention.ErrEmptyPolicy) || res.Plan != nil {
		t.Errorf("the zero policy: %v, want retention.ErrEmptyPolicy and no plan", err)
	}
	if res, err := prune.Run(t.Context(), nil, prune.Options{Policy: keepOne}); !errors.Is(err, pkgstore.ErrNoStore) || res == nil {
		t.Errorf("no store: %+v, %v; want pkgstore.ErrNoStore and an outcome", res, err)
	}
}

// TestStillMissing: under pressure, when not enough can be freed, the dry
// run says what the chosen removals leave missing and names the largest
// kept releases (measured: Scan.Sizes); after the run, what is missing is
// measured on the free space read again. A run that cannot take the lock
// reads nothing and removes nothing.
func TestStillMissing(t *testing.T) {
	t.Parallel()
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
			avail := []int64{gib, gib, gib + gib/2} // the dry run's, the run's before and after
			free := func() (pressure.Space, error) {
				a := avail[0]
				if len(avail) > 1 {
					avail = avail[1:]
				}
				return pressure.Space{Avail: a, Total: 100 * gib}, nil
			}
			scan := oldArchives
			scan.Sizes = tc.sizes
			o := prune.Options{Policy: keepOne, Scan: scan, Limits: &limits, Cache: &artifactcache.Options{}, Free: free, Settle: retention.NoSettle}
			dry := o
			dry.DryRun = true
			plan, err := prune.Run(t.Context(), store, dry)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Verdict == nil || !plan.Verdict.Under || plan.Missing != plan.Verdict.Short || plan.Missing < gib-1<<20 {
				t.Fatalf("verdict %+v, missing %d: want under pressure, about 1 GiB missing", plan.Verdict, plan.Missing)
			}
			wantLargest := []string{}
			if tc.sizes {
				wantLargest = []string{newest}
			}
			if got := idents(plan.LargestKept); !slices.Equal(got, wantLargest) {
				t.Errorf("largest kept %v, want %v", got, wantLargest)
			}
			if tc.refused {
				unlock, err := storetest.Open(t, b.Root).Lock(t.Context(), 0)
				if err != nil {
					t.Fatal(err)
				}
				defer unlock()
				o.LockTimeout = retention.NoLockWait
			}
			res, err := prune.Run(t.Context(), store, o)
			if tc.refused {
				if !errors.Is(err, pkgstore.ErrLocked) || res.Plan != nil || res.Result != nil || res.CacheDone != nil {
					t.Fatalf("refused run: %v, plan %v, result %+v, cache outcomes %+v", err, res.Plan != nil, res.Result, res.CacheDone)
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

// TestLockedNeedsTheLock: with Options.Locked (the scheduler holds the
// store's lock), the whole run goes ahead under the caller's lock, the
// cache's removals too; without the lock held, Apply refuses and nothing
// goes, the archives neither.
func TestLockedNeedsTheLock(t *testing.T) {
	t.Parallel()
	for _, held := range []bool{true, false} {
		b := pressureStore(t, true)
		store := storetest.Open(t, b.Root)
		if held {
			unlock, err := store.Lock(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()
		}
		res, err := prune.Run(t.Context(), store, prune.Options{Policy: keepOne, Scan: oldArchives,
			Cache: &artifactcache.Options{KeepLatest: retention.KeepNone}, Locked: true, Settle: retention.NoSettle})
		switch {
		case held && (err != nil || res.Result.Removed != 2 || len(removedArchives(res)) != 3):
			t.Errorf("lock held: %v, %+v, archives %v removed; want 2 and 3", err, res.Result, removedArchives(res))
		case !held && (!errors.Is(err, pkgstore.ErrNotLocked) || res.Result != nil || res.CacheDone != nil):
			t.Errorf("lock not held: %v, result %+v, cache outcomes %+v; want a refusal", err, res.Result, res.CacheDone)
		}
		if left := archivesLeft(t, b.Root); !held && len(left) != 3 {
			t.Errorf("archives left %v, want all three", left)
		}
	}
}
