package provenance

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkInstallRename: the rename that installs a release (a directory
// renamed into its version directory), with and without a Watcher
// recording it. Its notifications are not permission events: the renaming
// process never waits for hab-gc, so the two should be level.
func BenchmarkInstallRename(b *testing.B) {
	for _, watched := range []bool{false, true} {
		b.Run(map[bool]string{false: "unwatched", true: "watched"}[watched], func(b *testing.B) {
			root := b.TempDir()
			v := filepath.Join(root, "hab", "pkgs", "core", "redis", "1")
			if err := os.MkdirAll(v, 0o755); err != nil {
				b.Fatal(err)
			}
			if watched {
				w, err := Watch(root)
				if err != nil {
					b.Skipf("fanotify: %v", err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- w.Run(ctx, func(Record) {}) }()
				defer func() { cancel(); <-done }()
			}
			for i := 0; b.Loop(); i++ {
				tmp := filepath.Join(v, ".hab-pkg-install-"+strconv.Itoa(i))
				if err := os.Mkdir(tmp, 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.Rename(tmp, filepath.Join(v, strconv.Itoa(20240101000000+i))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
