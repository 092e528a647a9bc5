package pkgstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// craftedLinks is a store whose artifact cache holds 60 fresh symlinks
// (which every Studio build can write: hab-studio bind-mounts the cache)
// named with 32 hyphen-separated parts, each readable as thousands of
// idents, beside 5 Studios whose stores each reading would be looked up
// in.
func craftedLinks(tb testing.TB) (root string, links int) {
	b := storetest.New(tb)
	b.Pkg("core/redis/5.0.1/20210101000000")
	cache := b.Path(pkgstore.ArtifactCacheDir)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		tb.Fatal(err)
	}
	for s := 0; s < 5; s++ {
		if err := os.MkdirAll(b.Path(fmt.Sprintf("hab/studios/s%d/hab/pkgs", s)), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	outside := filepath.Join(tb.TempDir(), "x.hart")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		tb.Fatal(err)
	}
	links = 60
	for i := 0; i < links; i++ {
		name := fmt.Sprintf("a%d-", i) + strings.Repeat("b-", 30) + "c-x86_64-linux.hart" // 32 parts
		if err := os.Symlink(outside, filepath.Join(cache, name)); err != nil {
			tb.Fatal(err)
		}
	}
	return b.Root, links
}

// TestCraftedSymlinkNames (adversary): each crafted fresh link holds
// removals (its first reading is not installed).
func TestCraftedSymlinkNames(t *testing.T) {
	testtool.NeedSymlinks(t)
	root, links := craftedLinks(t)
	inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Fetched) != links {
		t.Errorf("%d fresh symlinked archives, want %d (each holds removals)", len(inv.Fetched), links)
	}
}

// BenchmarkScanCraftedSymlinkNames: the scan settles each crafted link at
// its first reading that is not installed, so it costs no more than a
// link Habitat names (`go test -run '^$' -bench CraftedSymlink ./pkgstore`:
// about 10 ms a scan on the 2-core development machine; looking up
// every reading in every Studio, before c170343, took about 21 s).
func BenchmarkScanCraftedSymlinkNames(b *testing.B) {
	root, _ := craftedLinks(b)
	for b.Loop() {
		if _, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux", Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}
