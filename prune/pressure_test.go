package prune_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

// pressureStore is a store with three releases of core/redis (the policy
// keeps the newest) and a cache with the archives of two releases that
// are not installed and of the oldest installed one.
func pressureStore(t *testing.T, withCache bool) *storetest.Builder {
	t.Helper()
	old := time.Now().Add(-48 * time.Hour)
	b := storetest.New(t)
	for _, id := range []string{"core/redis/6.2.4/20210901000000", "core/redis/6.2.5/20211001000000", "core/redis/6.2.6/20220101000000"} {
		b.Add(storetest.Release{Ident: id, ModTime: old, Files: map[string]string{"bin/redis": "x"}})
	}
	if withCache {
		dir := filepath.Join(b.Root, artifactcache.Dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"core/redis/5.0.0/20200101000000", "core/redis/5.0.1/20200201000000", "core/redis/6.2.4/20210901000000"} {
			if err := os.WriteFile(filepath.Join(dir, pkgstore.MustParseIdent(id).ArchiveName("x86_64-linux")), storetest.Hart(id), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b
}

// TestRunPressure (moved from artifactcache's
// PlanPressure): the composed call does what `hab-gc run --cache
// --min-free` does: nothing at or above min-free; below it the
// archives of releases that are not installed first (the newest of each
// package kept for a rollback), releases only for what they leave
// missing, and never the archive of a release the run removes.
func TestRunPressure(t *testing.T) {
	const gib = 1 << 30
	gone := "core-redis-5.0.0-20200101000000-x86_64-linux.hart"
	for _, tc := range []struct {
		name          string
		avail         int64
		noCache       bool
		wantArchives  []string // removed
		wantReleases  int      // removed
		wantUnder     bool
		wantCacheNone bool
	}{
		{name: "enough free: nothing goes", avail: 3 * gib},
		{name: "one archive is enough", avail: 2*gib - 1, wantArchives: []string{gone}, wantUnder: true},
		{name: "far below: archives then releases", avail: gib, wantArchives: []string{gone}, wantReleases: 2, wantUnder: true},
		{name: "no cache: releases alone", avail: gib, noCache: true, wantReleases: 2, wantUnder: true, wantCacheNone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pressureStore(t, !tc.noCache)
			store := storetest.Open(t, b.Root)
			limits := pressure.Limits{MinFree: pressure.Size{Bytes: 2 * gib}, MaxFree: pressure.Size{Bytes: 2 * gib}}
			free := func() (pressure.Space, error) { return pressure.Space{Avail: tc.avail, Total: 100 * gib}, nil }
			pp, err := prune.Run(t.Context(), store, prune.Options{Policy: retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge},
				Limits: &limits, Cache: &artifactcache.Options{}, Free: free, Scan: pkgstore.Options{Target: "x86_64-linux", InstallWindow: time.Nanosecond},
				Settle: retention.NoSettle})
			if err != nil {
				t.Fatal(err)
			}
			if pp.Verdict == nil || pp.Verdict.Under != tc.wantUnder {
				t.Errorf("under pressure: %+v, want %v", pp.Verdict, tc.wantUnder)
			}
			if tc.wantCacheNone != (pp.CacheErr != nil) || (tc.wantCacheNone && !errors.Is(pp.CacheErr, artifactcache.ErrNoCache)) {
				t.Errorf("CacheErr %v, want ErrNoCache: %v", pp.CacheErr, tc.wantCacheNone)
			}
			res := pp
			var removed []string
			for _, o := range res.CacheDone {
				if o.Status == retention.StatusRemoved {
					removed = append(removed, o.File)
				}
			}
			if len(removed) != len(tc.wantArchives) || (len(removed) > 0 && removed[0] != tc.wantArchives[0]) {
				t.Errorf("archives removed %v, want %v; files %+v", removed, tc.wantArchives, pp.Cache)
			}
			if res.Result == nil || res.Result.Removed != tc.wantReleases {
				t.Errorf("releases removed %d, want %d; plan %+v", res.Result.Removed, tc.wantReleases, pp.Plan.Decisions)
			}
			for _, f := range []string{"core-redis-5.0.1-20200201000000-x86_64-linux.hart", "core-redis-6.2.4-20210901000000-x86_64-linux.hart"} {
				if _, err := os.Lstat(filepath.Join(b.Root, artifactcache.Dir, f)); !tc.noCache && err != nil {
					t.Errorf("%s (the newest not installed, or a release the run removes) is gone: %v", f, err)
				}
			}
			if _, err := os.Lstat(b.PkgPath("core/redis/6.2.6/20220101000000")); err != nil {
				t.Errorf("the newest release is gone: %v", err)
			}
		})
	}
}

// TestRunPressureRefuses: bad limits and bad cache options are errors,
// and nothing is planned.
func TestRunPressureRefuses(t *testing.T) {
	b := pressureStore(t, true)
	store := storetest.Open(t, b.Root)
	free := func() (pressure.Space, error) { return pressure.Space{Avail: 1, Total: 1 << 40}, nil }
	pol := retention.Policy{KeepLatest: 1}
	for _, tc := range []struct {
		name string
		opts prune.Options
		want error
	}{
		{"max-free below min-free", prune.Options{Free: free, Limits: &pressure.Limits{MinFree: pressure.Size{Bytes: 10}, MaxFree: pressure.Size{Bytes: 5}}, Cache: &artifactcache.Options{}}, pressure.ErrBadLimits},
		{"negative cache keep-latest", prune.Options{Free: free, Limits: &pressure.Limits{}, Cache: &artifactcache.Options{KeepLatest: -3}}, artifactcache.ErrInvalidOptions},
		{"negative cache min-age", prune.Options{Free: free, Limits: &pressure.Limits{}, Cache: &artifactcache.Options{MinAge: -time.Minute}}, artifactcache.ErrInvalidOptions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Policy = pol
			tc.opts.Scan.Target = "x86_64-linux" // pressureStore's, whatever the machine's
			tc.opts.Settle = retention.NoSettle
			pp, err := prune.Run(t.Context(), store, tc.opts)
			if !errors.Is(err, tc.want) || pp.Result != nil {
				t.Fatalf("Plan: %v, %v; want an error wrapping %v", pp, err, tc.want)
			}
		})
	}
	if _, err := prune.Run(t.Context(), nil, prune.Options{Policy: pol, Limits: &pressure.Limits{}, Cache: &artifactcache.Options{}}); !errors.Is(err, pkgstore.ErrNoStore) {
		t.Fatalf("no store: %v", err)
	}
}
