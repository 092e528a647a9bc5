//go:build linux || darwin

package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"golang.org/x/sys/unix"
)

// TestCache needs a FIFO and statfs (the cache gauges come with the free
// space gauges): Linux and macOS.
func TestCache(t *testing.T) {
	root := t.TempDir()
	art := filepath.Join(root, "hab", "cache", "artifacts")
	os.MkdirAll(art, 0o755)
	os.MkdirAll(filepath.Join(root, "hab", "pkgs"), 0o755)
	os.WriteFile(filepath.Join(art, "core-a-1-2-x86_64-linux.hart"), make([]byte, 100), 0o644)
	os.WriteFile(filepath.Join(art, "core-b-1-2-x86_64-linux.hart"), make([]byte, 50), 0o644)
	os.WriteFile(filepath.Join(art, "notes.txt"), make([]byte, 1000), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(art, "link.hart"))
	os.Mkdir(filepath.Join(art, "dir.hart"), 0o755)
	unix.Mkfifo(filepath.Join(art, "fifo.hart"), 0o600)
	m := New()
	store := StorePath(root)
	m.Watch(store, root)
	want := `
# HELP hab_gc_cache_bytes Bytes of the package archives in FS_ROOT/hab/cache/artifacts.
# TYPE hab_gc_cache_bytes gauge
hab_gc_cache_bytes{store="` + store + `"} 150
# HELP hab_gc_cache_files Package archives (*.hart) in FS_ROOT/hab/cache/artifacts (hab-gc removes them only with run --cache).
# TYPE hab_gc_cache_files gauge
hab_gc_cache_files{store="` + store + `"} 2
`
	if err := testutil.GatherAndCompare(m.Gatherer(), strings.NewReader(want), "hab_gc_cache_files", "hab_gc_cache_bytes"); err != nil {
		t.Fatal(err)
	}
}
