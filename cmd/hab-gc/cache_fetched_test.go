package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestRunCacheKeepsFetchedArchive: an archive of a
// release that is not installed, just fetched into the cache (Habitat
// verifies it, then opens it again to unpack), is an install in progress:
// the store's plan waits for it within --install-window, which cannot be
// turned off, and the cache clean-up of the same run must not delete it,
// also with --min-age=none (the cache's own age guard), or the install
// fails when it unpacks.
func TestRunCacheKeepsFetchedArchive(t *testing.T) {
	b := storetest.New(t)
	b.Pkg("core/redis/5.0.1/20210101000000").Pkg("core/redis/6.2.6/20220101000000")
	dir := b.Path("hab/cache/artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "core-nginx-1.0.0-20230101000000-x86_64-linux.hart")
	if err := os.WriteFile(archive, storetest.Hart("core/nginx/1.0.0/20230101000000"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		args := []string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--target", "x86_64-linux",
			"--fs-root", b.Root, "--cache", "--cache-keep-latest=0"}
		if dry {
			args = append(args, "--dry-run")
		}
		var out, errb bytes.Buffer
		if code := execute(args, &out, &errb, func(string) (string, bool) { return "", false }); code != 0 {
			t.Fatalf("dry run %v: exit %d\n%s%s", dry, code, out.String(), errb.String())
		}
		if _, err := os.Stat(archive); err != nil {
			t.Fatalf("dry run %v: the fetched archive was removed: %v\n%s", dry, err, out.String())
		}
		// The dry run shows what the run does: the archive is kept.
		if !bytes.Contains(out.Bytes(), []byte("1 archive(s): 1 kept, 0 to remove")) {
			t.Errorf("dry run %v: the cache clean-up does not keep the fetched archive:\n%s", dry, out.String())
		}
	}
}
