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
)

// TestCraftedSymlinkNamesScanFast (adversary): fresh symlinks in the
// artifact cache (which every Studio build can write: hab-studio
// bind-mounts it) named with 32 hyphen-separated parts, each readable as
// thousands of idents, every one looked up in each Studio's store. The
// scan settles each link at its first reading that is not installed (it
// holds removals then), so it stays fast: 60 such links and 5 Studios
// took about 20 s before, and well under a second now.
func TestCraftedSymlinkNamesScanFast(t *testing.T) {
	b := storetest.New(t)
	b.Pkg("core/redis/5.0.1/20210101000000")
	cache := b.Path(pkgstore.ArtifactCacheDir)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 5; s++ {
		if err := os.MkdirAll(b.Path(fmt.Sprintf("hab/studios/s%d/hab/pkgs", s)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "x.hart")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	const links = 60
	for i := 0; i < links; i++ {
		name := fmt.Sprintf("a%d-", i) + strings.Repeat("b-", 30) + "c-x86_64-linux.hart" // 32 parts
		if err := os.Symlink(outside, filepath.Join(cache, name)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the scan took %s", took)
	}
	if len(inv.Fetched) != links {
		t.Errorf("%d fresh symlinked archives, want %d (each holds removals)", len(inv.Fetched), links)
	}
}
