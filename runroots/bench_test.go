//go:build linux

package runroots_test

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/runroots"
)

// BenchmarkScanProc starts 500 processes (sleep), each with three more
// files of a release open and a store path in its environment, then scans
// /proc. ms/500procs is the time per 500 processes listed (the machine's
// other processes are scanned too); the target is at most 50 ms.
func BenchmarkScanProc(b *testing.B) {
	const n = 500
	st := storetest.New(b)
	st.Add(storetest.Release{Ident: oldApp, Files: map[string]string{"a": "a", "b": "b", "c": "c"}})
	var files []*os.File
	for _, name := range []string{"a", "b", "c"} {
		f, err := os.Open(st.PkgPath(oldApp) + "/" + name)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		files = append(files, f)
	}
	sleep := proctest.Sleep(b)
	for range n {
		cmd := exec.Command(sleep, "600")
		cmd.ExtraFiles = files
		cmd.Env = []string{"PATH=" + st.PkgPath(oldApp) + "/bin:/usr/bin:/bin"}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	ctx := context.Background()
	inv, err := pkgstore.Scan(ctx, st.Root, pkgstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var procs int
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for b.Loop() {
		res, err := runroots.Scan(ctx, "", inv)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Uses) < n {
			b.Fatalf("found %d uses, want at least %d", len(res.Uses), n)
		}
		procs = res.Processes
	}
	perScan := time.Since(start) / time.Duration(b.N)
	cpuPerScan := (cpuTime() - cpu0) / time.Duration(b.N)
	b.ReportMetric(float64(procs), "procs")
	b.ReportMetric(float64(perScan.Microseconds())/1000*n/float64(procs), "ms/500procs")
	b.ReportMetric(float64(cpuPerScan.Microseconds())/1000*n/float64(procs), "cpu-ms/500procs")
}

// cpuTime is the user and system time this process has used: on a busy
// machine the wall time of a scan includes waiting for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
