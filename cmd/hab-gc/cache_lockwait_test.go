package main

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestCacheApplyWaitsForTheLock: run --cache's clean-up takes the store's
// lock after Apply has released it, and waits for it as Apply does
// (lock_timeout 0: retention.DefaultLockTimeout), so another hab-gc taking
// the lock in between delays the clean-up instead of failing it. Before,
// the raw setting was passed on: 0 tried once.
func TestCacheApplyWaitsForTheLock(t *testing.T) {
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "core/a/1/20200101000000"})
	b.Mkdir(pkgstore.ArtifactCacheDir)
	ctx := context.Background()
	store := storetest.Open(t, b.Root)
	other := storetest.Open(t, b.Root)
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
	cache, err := artifactcache.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	cr := &cacheRun{cache: cache, target: storetest.DefaultTarget}
	if err := cr.apply(ctx, store, 0, &retention.Result{}); err != nil {
		t.Fatalf("the clean-up did not wait for the lock: %v", err)
	}
	select {
	case <-released:
	default:
		t.Fatal("the clean-up ran while another held the lock")
	}
}
