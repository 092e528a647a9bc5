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
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestCacheKeepsWhatAFreshSymlinkedArchiveLeadsTo:
// a fresh symlink in the cache named as Habitat's archive of a release
// that is not installed, leading to an older archive of that release in
// the cache under another name. Habitat installing the release finds it
// cached through the link (components/common/src/command/package/install.rs
// is_artifact_cached: Path::is_file follows it; get_cached_artifact opens
// cached_artifact_path, and verify_artifact checks the archive it reads
// is of that release). The plan waits for that install; the cache
// clean-up must not delete the archive the install is about to open.
// The times are exact: the install window is set between the link's age
// and the archive's.
func TestCacheKeepsWhatAFreshSymlinkedArchiveLeadsTo(t *testing.T) {
	testtool.NeedSymlinks(t)
	b := storetest.New(t)
	b.Pkg("core/redis/5.0.1/20210101000000").Pkg("core/redis/6.2.6/20220101000000")
	dir := b.Path(pkgstore.ArtifactCacheDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const nginx = "core/nginx/1.0.0/20230101000000"
	file := filepath.Join(dir, "nginx-stable.hart")
	if err := os.WriteFile(file, storetest.Hart(nginx), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	link := filepath.Join(dir, storetest.Archive{Ident: nginx}.FileName())
	if err := os.Symlink(filepath.Base(file), link); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(file)
	if err != nil {
		t.Fatal(err)
	}
	li, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	fileChanged, linkChanged := fileinfo.LastChange(fi), fileinfo.LastChange(li)
	if !linkChanged.After(fileChanged) {
		t.Fatalf("the link (%s) is not newer than the archive (%s)", linkChanged, fileChanged)
	}
	window := linkChanged.Sub(fileChanged) / 2
	now := linkChanged.Add(window / 2) // the link window/2 old, the archive 2.5 windows
	store := storetest.Open(t, b.Root)
	plan, err := retention.PlanStore(context.Background(), store, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, now,
		pkgstore.Options{Target: "x86_64-linux", InstallWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	if plan.InstallWait == "" {
		t.Fatalf("the plan does not wait for the install through the fresh link; fetched %+v", plan.Inventory.Fetched)
	}
	cache, err := artifactcache.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	files, err := cache.Plan(context.Background(), artifactcache.StateOf(plan, false), artifactcache.Options{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge, Now: time.Now(), Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, f := range files {
		if f.File != filepath.Base(file) {
			continue
		}
		seen = true
		if f.Action == artifactcache.Remove {
			t.Errorf("%s: %s %v, while the plan waits for the install that opens it through %s", f.File, f.Action, f.Reasons, filepath.Base(link))
		}
	}
	if !seen {
		t.Errorf("%s not planned: %+v", filepath.Base(file), files)
	}
}
