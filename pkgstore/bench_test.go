package pkgstore_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/hab-gc/hab-gc/internal/benchstore"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// floorScan is the least work any scanner must do: list the four directory
// levels and read TARGET, IDENT, DEPS and TDEPS of every release, in
// parallel, with no parsing and nothing kept.
func floorScan(b *testing.B, store string, workers int) int {
	jobs := make(chan string, 64)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for name := range jobs {
				versions, _ := os.ReadDir(name)
				for _, v := range versions {
					vdir := filepath.Join(name, v.Name())
					rels, _ := os.ReadDir(vdir)
					for _, r := range rels {
						rdir := filepath.Join(vdir, r.Name())
						for _, f := range [4]string{"TARGET", "IDENT", "DEPS", "TDEPS"} {
							if _, err := os.ReadFile(filepath.Join(rdir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
								b.Error(err)
							}
						}
						n++
					}
				}
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	origins, _ := os.ReadDir(store)
	for _, o := range origins {
		names, _ := os.ReadDir(filepath.Join(store, o.Name()))
		for _, n := range names {
			jobs <- filepath.Join(store, o.Name(), n.Name())
		}
	}
	close(jobs)
	wg.Wait()
	return total
}

// BenchmarkScan scans generated stores and, in the same run, the floor
// (floorScan). It reports ns per release for both, their ratio
// (target: scan/floor <= 1.3) and the heap the Inventory retains per
// release (target: < 1 KiB).
func BenchmarkScan(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(itoa(n), func(b *testing.B) {
			root := benchstore.Get(b, n)
			store := filepath.Join(root, "hab", "pkgs")
			workers := runtime.GOMAXPROCS(0)
			floorScan(b, store, workers) // warm the page cache
			var scanNs, floorNs int64
			var retained uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()

				start := nanotime()
				inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux", Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				scanNs += nanotime() - start

				b.StopTimer()
				if len(inv.Releases) != n || len(inv.Problems) != 0 {
					b.Fatalf("scan found %d releases, %d problems", len(inv.Releases), len(inv.Problems))
				}
				runtime.GC()
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				retained += after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
				runtime.KeepAlive(inv)
				start = nanotime()
				if got := floorScan(b, store, workers); got != n {
					b.Fatalf("floor read %d releases", got)
				}
				floorNs += nanotime() - start
				b.StartTimer()
			}
			b.ReportMetric(float64(scanNs)/float64(b.N*n), "ns/release")
			b.ReportMetric(float64(floorNs)/float64(b.N*n), "floor-ns/release")
			b.ReportMetric(float64(scanNs)/float64(floorNs), "scan/floor")
			b.ReportMetric(float64(retained)/float64(b.N*n), "retained-B/release")
		})
	}
}
