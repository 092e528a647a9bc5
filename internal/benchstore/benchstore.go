// Package benchstore provides generated stores for benchmarks, cached on
// disk between runs (generating 100,000 releases takes a while).
package benchstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// Get returns the FS root of a generated store of n releases (10 per
// package), generating it under the temp directory on first use. The
// directory is named after its shape, and a marker file is written last,
// so an interrupted generation is redone.
func Get(b testing.TB, n int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("hab-gc-bench-v1-%d", n))
	marker := filepath.Join(dir, ".complete")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if _, err := storetest.Generate(dir, storetest.GenConfig{Packages: n / 10, ReleasesPerPackage: 10, Seed: 42}); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}
