// Package benchstore provides generated stores for benchmarks, cached on
// disk between runs (generating 100,000 releases takes a while), and runs
// the hab-gc CLI on them end to end (see DryRun).
package benchstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// Get returns the FS root of a generated store of n releases (n/10
// packages of 10 releases each), generating it under the temp directory on
// first use (hab-gc-bench-v1-N). The store is generated into a .partial
// directory, marked complete and then renamed into place, under a lock
// file, so an interrupted generation is redone and two processes asking
// for the same size generate it once. When the temp directory's file
// system has too little free space or too few free inodes for a store not
// yet generated, Get skips the benchmark (tb.Skip) and says why.
func Get(tb testing.TB, n int) string {
	tb.Helper()
	if n < 10 || n%10 != 0 {
		tb.Fatalf("benchstore: %d releases: want a multiple of 10", n)
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("hab-gc-bench-v1-%d", n))
	marker := filepath.Join(dir, ".complete")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	lock, err := os.OpenFile(dir+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	defer lock.Close()
	unlock, err := lockFile(lock)
	if errors.Is(err, errors.ErrUnsupported) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer unlock()
	if _, err := os.Stat(marker); err == nil {
		return dir // another process generated it while we waited
	}
	if err := checkRoom(os.TempDir(), n); err != nil {
		tb.Skip(err)
	}
	partial := dir + ".partial"
	for _, d := range []string{dir, partial} {
		if err := os.RemoveAll(d); err != nil {
			tb.Fatal(err)
		}
	}
	start := time.Now()
	if err := Generate(partial, n); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(partial, ".complete"), nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(partial, dir); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("benchstore: generated %d releases in %s under %s", n, time.Since(start).Round(time.Second), dir)
	return dir
}

// Generate writes the store Get caches, n releases (n/10 packages of 10
// releases each, seed 42), under root.
func Generate(root string, n int) error {
	_, err := storetest.Generate(root, storetest.GenConfig{Packages: n / 10, ReleasesPerPackage: 10, Seed: 42})
	return err
}
