package prune

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// cacheRun is a planned run with the cache of a store with one release
// open, and nothing to remove: what the cache's clean-up after Apply sees.
func cacheRun(t *testing.T) (*Run, *pkgstore.Store, string) {
	t.Helper()
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "core/a/1/20200101000000"})
	b.Mkdir(pkgstore.ArtifactCacheDir)
	store := storetest.Open(t, b.Root)
	cache, err := artifactcache.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cache.Close() })
	plan := &retention.Plan{Inventory: &pkgstore.Inventory{Target: storetest.DefaultTarget}}
	return &Run{Plan: plan, cache: cache}, store, b.Root
}

// TestCacheApplyWaitsForTheLock (moved from cmd/hab-gc): run --cache's
// clean-up takes the store's lock after Apply has released it, and waits
// for it as Apply does (LockTimeout 0: retention.DefaultLockTimeout), so
// another hab-gc taking the lock in between delays the clean-up instead of
// failing it. Before, the raw setting was passed on: 0 tried once.
func TestCacheApplyWaitsForTheLock(t *testing.T) {
	run, store, root := cacheRun(t)
	ctx := context.Background()
	other := storetest.Open(t, root)
	unlock, err := other.Lock(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		unlock()
		close(released)
	}()
	if _, err := run.removeArchives(ctx, store, retention.ApplyOptions{}, &retention.Result{}); err != nil {
		t.Fatalf("the clean-up did not wait for the lock: %v", err)
	}
	select {
	case <-released:
	default:
		t.Fatal("the clean-up ran while another held the lock")
	}
}

// TestCacheErrorWithoutTheLock: when the clean-up cannot take the lock
// (NoLockWait while another holds it), or the caller says it holds it
// (Locked) and does not, it removes nothing and says so with a
// *CacheError wrapping the lock's error.
func TestCacheErrorWithoutTheLock(t *testing.T) {
	run, store, root := cacheRun(t)
	unlock, err := storetest.Open(t, root).Lock(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, o := range []retention.ApplyOptions{{LockTimeout: retention.NoLockWait}, {Locked: true}} {
		outs, err := run.removeArchives(context.Background(), store, o, &retention.Result{})
		var ce *CacheError
		if !errors.As(err, &ce) || outs != nil {
			t.Errorf("%+v: %v, %+v; want a *CacheError and nothing removed", o, err, outs)
		}
		if o.LockTimeout == retention.NoLockWait && !errors.Is(err, pkgstore.ErrLocked) {
			t.Errorf("%+v: %v, want it to wrap pkgstore.ErrLocked", o, err)
		}
	}
}
