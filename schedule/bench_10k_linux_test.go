//go:build linux

package schedule_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// weekly10k is 10,000 definitions over 100 stores, each an explicit
// weekly prune at a minute of the week of its own: from a Sunday 00:00,
// each minute has exactly one job due.
func weekly10k(b *testing.B) []schedule.Definition {
	var defs []schedule.Definition
	for st := 0; st < 100; st++ {
		root := storetest.New(b).Root
		for i := 0; i < 100; i++ {
			n := i*100 + st // the minute of the week
			sp, err := schedule.ParseSpec(fmt.Sprintf("%d %d * * %d", n%60, n/60%24, n/1440))
			if err != nil {
				b.Fatal(err)
			}
			jd := schedule.JobDef{Type: schedule.Prune, Spec: sp, Params: schedule.Params{KeepLatest: 2}}
			d, err := schedule.NewDefinition(fmt.Sprintf("s%03d-%03d", st, i), root, time.Time{}, jd)
			if err != nil {
				b.Fatal(err)
			}
			defs = append(defs, d)
		}
	}
	return defs
}

// procIO returns the bytes this process passed to write(2) and read(2)
// (wchar, rchar of /proc/self/io).
func procIO(b *testing.B) (wchar, rchar int64) {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "wchar":
			wchar = n
		case "rchar":
			rchar = n
		}
	}
	return wchar, rchar
}

// rssMB is the process's resident set (VmRSS), in MiB.
func rssMB(b *testing.B) float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkTick10k: a tick with one due job among
// 10,000 (weekly10k): written-KB/tick and read-KB/tick are the bytes the
// process wrote and read (write(2), read(2)) in the tick, cpu-ms/tick the
// process's CPU time in it (ns/op its time, which the machine's load
// stretches);
// state-KB the state's files after the ticks.
func BenchmarkTick10k(b *testing.B) {
	defs := weekly10k(b)
	clk := &clock{t: time.Date(2026, 5, 31, 0, 0, 30, 0, time.UTC)} // a Sunday
	dir := b.TempDir()
	state := filepath.Join(dir, "state.json")
	s := &schedule.Scheduler{StatePath: state, Clock: clk.Now,
		Run: func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
			return schedule.RunResult{OK: true}, nil
		}}
	if n := loadDefs(b, s, defs); n != 10000 {
		b.Fatalf("%d jobs", n)
	}
	ctx := context.Background()
	s.RunDue(ctx)
	var w, r int64
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clk.Add(time.Minute) // the next minute of the week: one job due
		if clk.Now().Weekday() == time.Saturday && clk.Now().Hour() > 20 {
			clk.Add(5 * time.Hour) // past the last of the 10,000 minutes
		}
		w0, r0 := procIO(b)
		c0 := cpuTime()
		outs := s.RunDue(ctx)
		cpu += cpuTime() - c0
		w1, r1 := procIO(b)
		w, r = w+w1-w0, r+r1-r0
		if ran(outs) != 1 {
			b.Fatalf("tick %d at %v: %d ran, want 1", i, clk.Now(), ran(outs))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/tick")
	b.ReportMetric(float64(w)/float64(b.N)/1024, "written-KB/tick")
	b.ReportMetric(float64(r)/float64(b.N)/1024, "read-KB/tick")
	var size int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
	}
	b.ReportMetric(float64(size)/1024, "state-KB")
}

// BenchmarkReloadRSS10k: the resident set of a
// scheduler of the 10,000 definitions of weekly10k after its first
// Reload (rss-MB-start), after two more (rss-MB-reload2) and ten
// (rss-MB-reload10), the resident set once the garbage is given back to
// the system (kept-MB-*: debug.FreeOSMemory), and the live heap at each. Run it alone (-bench 'ReloadRSS10k$' -benchtime 1x), with
// GOGC=40 (the daemon's then; 30 since 2026-12-07): the RSS is the whole test process's.
func BenchmarkReloadRSS10k(b *testing.B) {
	defs := weekly10k(b)
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	for b.Loop() {
		clk := &clock{t: time.Date(2026, 5, 31, 0, 0, 30, 0, time.UTC)}
		s := &schedule.Scheduler{StatePath: filepath.Join(b.TempDir(), "state.json"), Clock: clk.Now,
			Run: func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
				return schedule.RunResult{OK: true}, nil
			}}
		loadDefs(b, s, defs)
		s.RunDue(context.Background())
		// The resident set as sampled (what a monitor sees: it moves
		// with the garbage collector's phase) and after the garbage is
		// given back to the system (what is retained).
		retained := func() float64 { debug.FreeOSMemory(); return rssMB(b) }
		rss0, heap0 := rssMB(b), heap()
		kept0 := retained()
		reload := func(n int) {
			for range n {
				clk.Add(time.Minute) // a job due: a run recorded between reloads
				if _, err := s.Reload(); err != nil {
					b.Fatal(err)
				}
				s.RunDue(context.Background())
			}
		}
		reload(2)
		rss2, heap2 := rssMB(b), heap()
		kept2 := retained()
		reload(8)
		rss10, heap10 := rssMB(b), heap()
		kept10 := retained()
		b.ReportMetric(rss0, "rss-MB-start")
		b.ReportMetric(rss2, "rss-MB-reload2")
		b.ReportMetric(rss10, "rss-MB-reload10")
		b.ReportMetric(kept0, "kept-MB-start")
		b.ReportMetric(kept2, "kept-MB-reload2")
		b.ReportMetric(kept10, "kept-MB-reload10")
		b.ReportMetric(heap0, "heap-MB-start")
		b.ReportMetric(heap2, "heap-MB-reload2")
		b.ReportMetric(heap10, "heap-MB-reload10")
		runtime.KeepAlive(s)
	}
}
