package artifactcache_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestCacheKeepsArchiveOfInstallBegunAfterPlan (adversary): the cache
// clean-up removes its archives after the releases, under the store's
// lock, long after its plan (Apply's settle, its last check). An install
// that began meanwhile from an archive cached long ago (Habitat's
// install.rs get_cached_artifact finds it cached and verifies it;
// unpack_artifact then makes its install directory, list.rs
// temp_package_directory, and opens the archive again to unpack it) must
// keep that archive, as it would have at the plan.
func TestCacheKeepsArchiveOfInstallBegunAfterPlan(t *testing.T) {
	b := storetest.New(t)
	b.Pkg("core/redis/6.2.6/20220101000000")
	dir := b.Path(pkgstore.ArtifactCacheDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const nginx = "core/nginx/1.0.0/20230101000000"
	name := storetest.Archive{Ident: nginx}.FileName()
	if err := os.WriteFile(filepath.Join(dir, name), storetest.Hart(nginx), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	// The archive counts as cached long ago: the plan's clock is a day on.
	now := fileinfo.LastChange(fi).Add(24 * time.Hour)
	store := storetest.Open(t, b.Root)
	plan, err := retention.PlanStore(context.Background(), store, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, now,
		pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := artifactcache.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	files, err := cache.Plan(context.Background(), artifactcache.StateOf(plan, false), artifactcache.Options{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge, Now: now, Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Action != artifactcache.Remove {
		t.Fatalf("the plan does not remove the archive: %+v", files)
	}
	// The install begins: its install directory appears.
	if err := os.MkdirAll(b.Path(pkgstore.StoreDir+"/core/nginx/1.0.0/"+pkgstore.InstallTempPrefix+"-20230101000000AbC123"), 0o700); err != nil {
		t.Fatal(err)
	}
	unlock, err := store.Lock(context.Background(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	artifactcache.Recheck(context.Background(), store, files, nil,
		pkgstore.Options{Target: plan.Inventory.Target, Now: time.Now(), InstallWindow: plan.Inventory.InstallWindow})
	outs := cache.Remove(context.Background(), files)
	if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
		t.Errorf("the archive of the install in progress is gone: %v (%+v)", err, outs)
	}
}
