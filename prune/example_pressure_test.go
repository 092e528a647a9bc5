package prune_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

// Run with Limits and Cache is disk pressure with the artifact cache in
// one call, as `hab-gc run --cache --min-free`:
// below min-free, the cache's archives of releases that are not installed
// go first, and releases the policy removes only for what they leave
// missing. Here the file system is one byte short of
// its 2 GiB min-free, so one archive is enough and every release stays.
func ExampleRun_pressure() {
	fsRoot, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(fsRoot)
	old := time.Now().Add(-48 * time.Hour)
	s, _ := pkgstoretest.New(fsRoot)
	s.Add(pkgstoretest.Release{Ident: "core/redis/6.2.5/20211001000000", ModTime: old},
		pkgstoretest.Release{Ident: "core/redis/6.2.6/20220101000000", ModTime: old})
	cache := filepath.Join(fsRoot, artifactcache.Dir)
	os.MkdirAll(cache, 0o755)
	for _, id := range []string{"core/redis/5.0.0/20200101000000", "core/redis/5.0.1/20200201000000"} { // not installed
		os.WriteFile(filepath.Join(cache, pkgstore.MustParseIdent(id).ArchiveName("x86_64-linux")), storetest.Hart(id), 0o644)
	}
	ctx := context.Background()
	store, err := pkgstore.Open(fsRoot)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	// Stand-ins: the file system is one byte short of 2 GiB free (Free's
	// default reads statfs), the archives count as downloaded long ago
	// (their install window, an hour by default, has passed), and the
	// releases as old enough (the policy's MinAge). On a machine, leave
	// Free and Scan out, and MinAge.
	free := func() (pressure.Space, error) { return pressure.Space{Avail: 2<<30 - 1, Total: 100 << 30}, nil }
	scan := pkgstore.Options{Target: "x86_64-linux", InstallWindow: time.Nanosecond} // the releases' and archives' target
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}

	two := pressure.Size{Bytes: 2 << 30}
	limits := pressure.Limits{MinFree: two, MaxFree: two}
	o := prune.Options{Policy: pol, Limits: &limits} // --min-free 2GiB
	o.Cache = &artifactcache.Options{}               // --cache
	o.Free, o.Scan = free, scan
	res, err := prune.Run(ctx, store, o)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Verdict.Text(limits))
	for _, o := range res.CacheDone {
		fmt.Println(o.Status, o.File)
	}
	fmt.Println("releases removed:", res.Result.Removed)
	// Output:
	// free space 2.0 GiB is below min-free 2.0 GiB: removing 0 release(s) to reach max-free 2.0 GiB
	// removed core-redis-5.0.0-20200101000000-x86_64-linux.hart
	// releases removed: 0
}
