package watch_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/benchstore"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// BenchmarkWatch measures resource goals for `hab-gc watch` on a
// generated store of 10,000 releases (its own copy: it is changed), as a
// process of the built CLI:
//   - idle-cpu-s: CPU seconds (user+system, /proc/PID/stat) the watch uses
//     over HAB_GC_BENCH_IDLE (default 60s) of no change (goal: <= 0.1);
//   - idle-peak-RSS-MiB: its VmHWM before the update (start-up and idle;
//     goal: <= 40), peak-RSS-MiB after the purge (whose store-wide plan
//     holds the inventory, as a dry run does);
//   - purge-s / dryrun-s: the purge after one update (plan and apply, the
//     duration its log line gives) against a full dry run of the same
//     store by `hab-gc run --dry-run --json` (goal: <= 1.5x).
//
// Run it once: go test -run '^$' -bench Watch -benchtime 1x ./watch
func BenchmarkWatch(b *testing.B) {
	idle := 60 * time.Second
	if s := os.Getenv("HAB_GC_BENCH_IDLE"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		idle = d
	}
	root := b.TempDir()
	if err := benchstore.Generate(root, 10000); err != nil {
		b.Fatal(err)
	}
	origins, _ := os.ReadDir(filepath.Join(root, pkgstore.StoreDir))
	names, _ := os.ReadDir(filepath.Join(root, pkgstore.StoreDir, origins[0].Name()))
	pkg := origins[0].Name() + "/" + names[0].Name()
	storetest.At(b, root).Spec(names[0].Name(), pkg)
	bin, err := benchstore.BuildCLI(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dry, err := benchstore.DryRun(bin, root, nil)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		var stderr testtool.SyncBuffer
		cmd := exec.Command(bin, "watch", "--fs-root", root, "--keep-latest=3", "--min-age=none", "--delay=1s",
			"--target", storetest.DefaultTarget)
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		wait := func(what string) {
			re := regexp.MustCompile(what)
			for deadline := time.Now().Add(5 * time.Minute); !re.MatchString(stderr.String()); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					b.Fatalf("no %q:\n%s", what, stderr.String())
				}
			}
		}
		wait("watching the store")
		startRSS := status(b, cmd.Process.Pid, "VmHWM:") // start-up: the watches set
		// The purge at start (as the Supervisor, every loaded
		// service at start) plans the whole store; idle is measured after it.
		wait(`msg=purged .*trigger=start`)
		cpu0 := cpuSeconds(b, cmd.Process.Pid)
		time.Sleep(idle)
		idleCPU := cpuSeconds(b, cmd.Process.Pid) - cpu0
		idleRSS := status(b, cmd.Process.Pid, "VmRSS:") // resident while idle, after the purge at start
		in := storetest.NewInstaller(root, 7)
		id := pkg + "/99.0.0/20300101000000"
		in.Publish(storetest.Archive{Ident: id})
		if err := in.Install(id); err != nil {
			b.Fatal(err)
		}
		wait(`msg=purged .*trigger=update`)
		rss := status(b, cmd.Process.Pid, "VmHWM:")
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		m := regexp.MustCompile(`msg=purged .*trigger=update .*duration=(\S+)`).FindStringSubmatch(stderr.String())
		if m == nil {
			b.Fatalf("no purge duration:\n%s", stderr.String())
		}
		purge, err := time.ParseDuration(m[1])
		if err != nil {
			b.Fatal(err)
		}
		watches := regexp.MustCompile(`watches=(\d+)`).FindStringSubmatch(stderr.String())
		b.ReportMetric(idleCPU, "idle-cpu-s")
		b.ReportMetric(float64(startRSS)/(1<<20), "start-peak-RSS-MiB")
		b.ReportMetric(float64(idleRSS)/(1<<20), "idle-RSS-MiB")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(purge.Seconds(), "purge-s")
		b.ReportMetric(dry.Wall.Seconds(), "dryrun-s")
		b.ReportMetric(purge.Seconds()/dry.Wall.Seconds(), "purge/dryrun")
		if len(watches) == 2 {
			n, _ := strconv.Atoi(watches[1])
			b.ReportMetric(float64(n), "watches")
		}
		b.Logf("start-up: peak RSS %.1f MiB; idle %s after the purge at start: %.3f CPU s, RSS %.1f MiB; after the update's purge: peak RSS %.1f MiB; purge %s vs dry run %s; %s",
			float64(startRSS)/(1<<20), idle, idleCPU, float64(idleRSS)/(1<<20), float64(rss)/(1<<20), purge, dry.Wall, watches[0])
	}
}

// cpuSeconds is a process's user+system CPU time from /proc/PID/stat.
func cpuSeconds(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ
}

// status is a size field of /proc/PID/status (VmHWM: the peak RSS, VmRSS:
// the RSS now) in bytes.
func status(b *testing.B, pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}
