package retention_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// paceWriterEnv makes this test binary the neighbour of BenchmarkPace: a
// process that writes 4 KiB and calls fdatasync every 5 ms (a database's
// commit) in the directory it names, until its stdin closes, then prints
// each fdatasync's latency in microseconds.
const paceWriterEnv = "HABGC_PACE_WRITER"

func paceWriter(dir string) {
	f, err := os.CreateTemp(dir, "writer-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.Remove(f.Name())
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	buf := make([]byte, 4096)
	var lats []time.Duration
	tick := time.NewTicker(5 * time.Millisecond)
	for off := int64(0); ; off = (off + 4096) % (4 << 20) {
		select {
		case <-done:
			w := bufio.NewWriter(os.Stdout)
			for _, l := range lats {
				fmt.Fprintln(w, l.Microseconds())
			}
			w.Flush()
			return
		case <-tick.C:
		}
		f.WriteAt(buf, off)
		t0 := time.Now()
		f.Sync() // fdatasync would do; Sync is fsync, the same for a rewritten block
		lats = append(lats, time.Since(t0))
	}
}

// neighbour is a running paceWriter.
type neighbour struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *os.File
}

func startNeighbour(b *testing.B, dir string) *neighbour {
	out, err := os.CreateTemp(b.TempDir(), "lat")
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), paceWriterEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &neighbour{cmd, stdin, out}
}

// stop ends the writer and returns its latencies' p50, p99 and max.
func (n *neighbour) stop(b *testing.B) (p50, p99, maxLat time.Duration) {
	n.stdin.Close()
	if err := n.cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(n.out.Name())
	if err != nil {
		b.Fatal(err)
	}
	var lats []time.Duration
	for _, l := range strings.Fields(string(data)) {
		us, _ := strconv.Atoi(l)
		lats = append(lats, time.Duration(us)*time.Microsecond)
	}
	if len(lats) == 0 {
		b.Fatal("the writer measured nothing")
	}
	slices.Sort(lats)
	return lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)-1]
}

// BenchmarkPace reproduces the table of docs/performance.md ("Pacing"):
// a generated store (HABGC_BENCH_PACE_PACKAGES packages of 10 releases,
// default 200, each release 40 files of 4 KiB) in the temp directory,
// which must be on the disk to measure; its releases beyond the newest of
// each package deleted by Apply with Pace off and auto, each on a fresh
// copy, alone and beside a writer process (paceWriter). Reported: the
// writer's p50/p99/max latency (idle, and during each run) and each run's
// duration. Run it with -benchtime=1x: each iteration regenerates stores.
func BenchmarkPace(b *testing.B) {
	packages := 200
	if v := os.Getenv("HABGC_BENCH_PACE_PACKAGES"); v != "" {
		packages, _ = strconv.Atoi(v)
	}
	dir := b.TempDir()
	for b.Loop() {
		n := startNeighbour(b, dir)
		time.Sleep(3 * time.Second) // the idle baseline
		p50, p99, mx := n.stop(b)
		b.Logf("idle disk: writer p50 %s, p99 %s, max %s", p50, p99, mx)
		b.ReportMetric(ms(p99), "idle-p99-ms")
		for _, mode := range []struct {
			name string
			pace time.Duration
		}{{"off", 0}, {"auto", retention.PaceAuto}, {"priority", retention.MaxPace}} {
			// "priority": the lowest I/O priority and the directory
			// syncs of pacing, without its pauses (no sync takes 10 s).
			for _, beside := range []bool{false, true} {
				root := filepath.Join(dir, "store-"+mode.name+strconv.FormatBool(beside))
				if _, err := storetest.Generate(root, storetest.GenConfig{Packages: packages, ReleasesPerPackage: 10,
					FilesPerRelease: 40, PayloadBytes: 4096, Seed: 42}); err != nil {
					b.Fatal(err)
				}
				syncAndDropCaches()
				store, err := pkgstore.Open(root)
				if err != nil {
					b.Fatal(err)
				}
				plan, err := retention.PlanStore(context.Background(), store, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge},
					time.Now(), pkgstore.Options{Target: "x86_64-linux"})
				if err != nil {
					b.Fatal(err)
				}
				var w *neighbour
				if beside {
					w = startNeighbour(b, dir)
				}
				start := time.Now()
				res, err := plan.Apply(context.Background(), store, retention.ApplyOptions{Settle: retention.NoSettle, Pace: mode.pace})
				took := time.Since(start)
				store.Close()
				if err != nil {
					b.Fatal(err)
				}
				label := "pace " + mode.name + ", alone"
				key := mode.name + "-alone"
				if beside {
					p50, p99, mx := w.stop(b)
					label = "pace " + mode.name + ", beside the writer"
					key = mode.name + "-beside"
					b.Logf("%s: writer p50 %s, p99 %s, max %s", label, p50, p99, mx)
					b.ReportMetric(ms(p99), key+"-p99-ms")
				}
				b.Logf("%s: removed %d releases in %s (paced %s)", label, res.Removed, took.Round(time.Millisecond), res.Paced.Round(time.Millisecond))
				b.ReportMetric(took.Seconds(), key+"-s")
				os.RemoveAll(root)
			}
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// syncAndDropCaches writes everything out and, as root, empties the page
// cache, so that each run starts from a cold, quiet disk.
func syncAndDropCaches() {
	exec.Command("sync").Run()
	os.WriteFile("/proc/sys/vm/drop_caches", []byte("3"), 0)
}
