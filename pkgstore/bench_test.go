package pkgstore_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/benchstore"
	"github.com/hab-gc/hab-gc/internal/jsonstream"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// benchSizesEnv selects the store sizes BenchmarkScan runs on, as a comma
// separated list of release counts, multiples of 10 (default 10000). A
// size of namedSizes written in the -bench pattern
// (-bench 'Scan$/300000') also runs.
const benchSizesEnv = "HABGC_BENCH_SIZES"

// namedSizes are the sizes a -bench pattern can ask for by name: 100,000,
// 130,000 (the store of peak-RSS target) and 300,000.
var namedSizes = [...]int{100_000, 130_000, 300_000}

// benchSizes returns the store sizes to benchmark: HABGC_BENCH_SIZES, else
// 10,000 plus each of namedSizes that -test.bench names.
func benchSizes(b *testing.B) []int {
	if env := os.Getenv(benchSizesEnv); env != "" {
		var sizes []int
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 10 || n%10 != 0 {
				b.Fatalf("%s=%q: want release counts, multiples of 10, comma separated", benchSizesEnv, env)
			}
			sizes = append(sizes, n)
		}
		return sizes
	}
	sizes := []int{10_000}
	f := flagValue("test.bench")
	for _, n := range namedSizes {
		if strings.Contains(f, itoa(n)) {
			sizes = append(sizes, n)
		}
	}
	return sizes
}

func flagValue(name string) string {
	for _, a := range os.Args[1:] {
		for _, p := range []string{"-" + name + "=", "--" + name + "="} {
			if v, ok := strings.CutPrefix(a, p); ok {
				return v
			}
		}
	}
	return ""
}

// floorScan is the least work any scanner must do: list the four directory
// levels and read TARGET, IDENT, DEPS and TDEPS of every release, with
// workers goroutines, no parsing and nothing kept.
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

// dryRun is the work of `hab-gc run --keep-latest=3 --min-age=none
// --dry-run --json` without the process: open the store, scan it, plan
// (sizes of the releases to remove included, as the CLI does) and encode
// the plan's report as the CLI encodes it.
func dryRun(b *testing.B, root string) {
	store, err := pkgstore.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	pol := retention.Policy{KeepLatest: 3, MinAge: retention.NoMinAge}
	plan, err := retention.PlanStore(context.Background(), store, pol, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		b.Fatal(err)
	}
	if err := jsonstream.Encode(io.Discard, plan.Report(nil)); err != nil {
		b.Fatal(err)
	}
}

// floorFactors are the multiples of GOMAXPROCS the floor is read with; a
// reader blocked in read(2) leaves its core idle, so the fastest of these
// is the floor.
var floorFactors = [...]int{2, 4, 8}

// BenchmarkScan measures, interleaved in each iteration on the same
// generated store: the floor (floorScan with 2, 4 and 8 times GOMAXPROCS
// goroutines; the fastest is the floor), pkgstore.Scan with its default
// options, a whole dry run in process (dryRun) and the same dry run end to
// end: the hab-gc binary, built once before timing, run as a child process
// (benchstore.DryRun: `hab-gc run --keep-latest=3 --min-age=none --dry-run
// --json --target x86_64-linux --fs-root ROOT`, its output to the null
// device, runtime roots read from /proc as by default), timed wall-clock
// from start to exit, then again with runtime roots off
// (benchstore.DryRunRootsOff: where a process such as PID 1 cannot be
// inspected, the run with roots on is blind and leases every file it
// would remove; the run with roots off reads no process). It reports ns per release for each, their ratios to
// the floor (target: e2e/floor <= 1.3 at 100,000), the end-to-end run's
// ratio to rawFloorScan (the same reads with the fewest system calls: a
// stricter floor than the issue's, reported for comparison), the heap the Inventory
// retains per release (target: < 1 KiB) and the end-to-end run's peak RSS,
// the largest over the iterations (target: < 300 MiB at 130,000). Before
// timing, one end-to-end run checks that the CLI plans exactly the store's
// releases with no problems. Sizes: see benchSizes.
func BenchmarkScan(b *testing.B) {
	bin, err := benchstore.BuildCLI(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range benchSizes(b) {
		b.Run(itoa(n), func(b *testing.B) {
			root := benchstore.Get(b, n)
			store := filepath.Join(root, "hab", "pkgs")
			procs := runtime.GOMAXPROCS(0)
			floorScan(b, store, procs) // warm the page cache
			if _, err := benchstore.CheckDryRun(bin, root, n); err != nil {
				b.Fatal(err)
			}
			var floorNs, rawNs [len(floorFactors)]int64
			var scanNs, dryNs, e2eNs, offNs, peakRSS, offRSS int64
			var retained uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				for k, f := range floorFactors {
					start := nanotime()
					if got := floorScan(b, store, f*procs); got != n {
						b.Fatalf("floor read %d releases", got)
					}
					floorNs[k] += nanotime() - start
					start = nanotime()
					if got := rawFloorScan(b, store, f*procs); got != n && got != -1 {
						b.Fatalf("raw floor read %d releases", got)
					}
					rawNs[k] += nanotime() - start
				}
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()

				start := nanotime()
				inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux"})
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
				runtime.GC()
				start = nanotime()
				dryRun(b, root)
				dryNs += nanotime() - start
				run, err := benchstore.DryRun(bin, root, nil)
				if err != nil {
					b.Fatal(err)
				}
				e2eNs += run.Wall.Nanoseconds()
				peakRSS = max(peakRSS, run.MaxRSS)
				if run, err = benchstore.DryRunRootsOff(bin, root, nil); err != nil {
					b.Fatal(err)
				}
				offNs += run.Wall.Nanoseconds()
				offRSS = max(offRSS, run.MaxRSS)
				b.StartTimer()
			}
			per := func(ns int64) float64 { return float64(ns) / float64(b.N*n) }
			floor := floorNs[0]
			for k, ns := range floorNs {
				b.ReportMetric(per(ns), "floor"+itoa(floorFactors[k])+"x-ns/release")
				floor = min(floor, ns)
			}
			b.ReportMetric(per(floor), "floor-ns/release")
			if raw := slices.Min(rawNs[:]); rawFloorScan(b, store, 1) != -1 {
				b.ReportMetric(per(raw), "rawfloor-ns/release")
				b.ReportMetric(float64(e2eNs)/float64(raw), "e2e/rawfloor")
			}
			b.ReportMetric(per(scanNs), "scan-ns/release")
			b.ReportMetric(per(dryNs), "dryrun-ns/release")
			b.ReportMetric(per(e2eNs), "e2e-ns/release")
			b.ReportMetric(float64(scanNs)/float64(floor), "scan/floor")
			b.ReportMetric(float64(dryNs)/float64(floor), "dryrun/floor")
			b.ReportMetric(float64(e2eNs)/float64(floor), "e2e/floor")
			b.ReportMetric(per(offNs), "e2e-rootsoff-ns/release")
			b.ReportMetric(float64(offNs)/float64(floor), "e2e-rootsoff/floor")
			b.ReportMetric(float64(offRSS)/(1<<20), "rootsoff-peak-RSS-MiB")
			b.ReportMetric(float64(retained)/float64(b.N*n), "retained-B/release")
			b.ReportMetric(float64(peakRSS)/(1<<20), "peak-RSS-MiB")
		})
	}
}
