package pkgstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/benchstore"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// leaseFloor is the least a blind run can do beyond reading the store:
// walk each release directory in dirs and take and drop a write lease on
// each of its regular files, on workers goroutines. It returns how many
// files it checked.
func leaseFloor(b *testing.B, dirs []string, workers int) int {
	jobs := make(chan string, 64)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	var walk func(dir string) int
	walk = func(dir string) int {
		ents, err := os.ReadDir(dir)
		if err != nil {
			b.Error(err)
			return 0
		}
		n := 0
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				n += walk(p)
			case e.Type().IsRegular():
				fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				if err != nil {
					b.Error(err)
					continue
				}
				if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_WRLCK); err == nil {
					unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
				}
				unix.Close(fd)
				n++
			}
		}
		return n
	}
	for range workers {
		wg.Go(func() {
			n := 0
			for d := range jobs {
				n += walk(d)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	for _, d := range dirs {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	return total
}

// BenchmarkBlindDryRun compares a blind end-to-end dry run (the CLI as
// root without CAP_SYS_PTRACE: benchstore.BlindDryRun) with its floor:
// the plain reader of BenchmarkScan (fastest of 2, 4 and 8 times
// GOMAXPROCS goroutines) plus leaseFloor over the releases the plan
// removes (4 times GOMAXPROCS goroutines), interleaved on the same store.
// Sizes as BenchmarkScan's (HABGC_BENCH_SIZES). Skipped unless root with
// util-linux setpriv.
func BenchmarkBlindDryRun(b *testing.B) {
	bin, err := benchstore.BuildCLI(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range benchSizes(b) {
		b.Run(itoa(n), func(b *testing.B) {
			root := benchstore.Get(b, n)
			store := filepath.Join(root, "hab", "pkgs")
			procs := runtime.GOMAXPROCS(0)
			s, err := pkgstore.Open(root)
			if err != nil {
				b.Fatal(err)
			}
			plan, err := retention.PlanStore(context.Background(), s, retention.Policy{KeepLatest: 3, MinAge: retention.NoMinAge}, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
			s.Close()
			if err != nil {
				b.Fatal(err)
			}
			var dirs []string
			for _, d := range plan.Removals() {
				dirs = append(dirs, filepath.Join(store, filepath.FromSlash(d.Release.Path())))
			}
			plan = nil
			if _, err := benchstore.BlindDryRun(bin, root, nil); errors.Is(err, benchstore.ErrCannotBlind) {
				b.Skip(err)
			} else if err != nil {
				b.Fatal(err)
			}
			var floorNs, leaseNs, blindNs, peak int64
			var ratios []float64 // blind/(floor+leases) of each iteration
			files := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				best := int64(-1)
				for _, f := range floorFactors {
					start := nanotime()
					if got := floorScan(b, store, f*procs); got != n {
						b.Fatalf("floor read %d releases", got)
					}
					if ns := nanotime() - start; best < 0 || ns < best {
						best = ns
					}
				}
				floorNs += best
				start := nanotime()
				files = leaseFloor(b, dirs, 4*procs)
				lease := nanotime() - start
				leaseNs += lease
				run, err := benchstore.BlindDryRun(bin, root, nil)
				if err != nil {
					b.Fatal(err)
				}
				blindNs += run.Wall.Nanoseconds()
				peak = max(peak, run.MaxRSS)
				ratios = append(ratios, float64(run.Wall.Nanoseconds())/float64(best+lease))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[0], "min-blind/floor+leases")
			b.ReportMetric(ratios[len(ratios)/2], "median-blind/floor+leases")
			per := func(ns int64) float64 { return float64(ns) / float64(b.N*n) }
			b.ReportMetric(per(floorNs), "floor-ns/release")
			b.ReportMetric(per(floorNs+leaseNs), "floor+leases-ns/release")
			b.ReportMetric(per(blindNs), "blind-e2e-ns/release")
			b.ReportMetric(float64(blindNs)/float64(floorNs+leaseNs), "blind/floor+leases")
			b.ReportMetric(float64(files), "leased-files")
			b.ReportMetric(float64(peak)/float64(n), "blind-peak-RSS-B/release")
		})
	}
}
