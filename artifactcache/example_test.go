package artifactcache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// Plan decides each archive of FS_ROOT/hab/cache/artifacts from what the
// store's plan does with its release: the archive of a kept release stays,
// the newest archive of a package whose releases go stays for an offline
// rollback (KeepLatest), older ones go.
func ExampleCache_Plan() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	cache := filepath.Join(dir, artifactcache.Dir)
	os.MkdirAll(cache, 0o755)
	old := time.Now().Add(-48 * time.Hour)
	for _, id := range []string{"core/redis/7.0.0/20220101000000", "core/redis/7.0.1/20220201000000", "core/redis/7.0.2/20220301000000"} {
		p := filepath.Join(cache, "core-redis-"+id[len("core/redis/"):len(id)-15]+"-"+id[len(id)-14:]+"-x86_64-linux.hart")
		os.WriteFile(p, storetest.Hart(id), 0o644)
		os.Chtimes(p, old, old)
	}
	kept := pkgstore.MustParseIdent("core/redis/7.0.2/20220301000000")
	status := func(id pkgstore.Ident) artifactcache.ReleaseState { // what the store's plan says
		if id == kept {
			return artifactcache.Kept
		}
		return artifactcache.Removed
	}

	c, err := artifactcache.Open(dir)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	files, err := c.Plan(context.Background(), status, artifactcache.Options{KeepLatest: 1, Now: time.Now(), Target: "x86_64-linux",
		MinAge: retention.NoMinAge}) // written a moment ago: on a machine leave MinAge out (an hour)
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		var codes []retention.Code
		for _, r := range f.Reasons {
			codes = append(codes, r.Code)
		}
		fmt.Println(f.File, f.Action, codes)
	}
	// Output:
	// core-redis-7.0.0-20220101000000-x86_64-linux.hart remove [removed-in-run]
	// core-redis-7.0.1-20220201000000-x86_64-linux.hart keep [removed-in-run cache-latest]
	// core-redis-7.0.2-20220301000000-x86_64-linux.hart keep [release-kept]
}
