//go:build unix

package schedule_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// BenchmarkTick: 2,000 jobs over 100 stores (per store
// one every-minute check and 19 daily prunes at their own times). idle is
// a tick with nothing due (RunDue and NextWake), due the tick at a minute
// when the 100 checks fall due: cpu-ms/tick is the process's CPU time a
// tick, max-start-ms how long after its due time the last run started.
func BenchmarkTick(b *testing.B) {
	var defs []schedule.Definition
	check, _ := schedule.ParseSpec("* * * * *")
	for st := 0; st < 100; st++ {
		root := storetest.New(b).Root
		for i := 0; i < 20; i++ {
			var jd schedule.JobDef
			if i == 0 {
				jd = schedule.JobDef{Type: schedule.Check, Spec: check}
			} else {
				sp, _ := schedule.ParseSpec(fmt.Sprintf("%d %d * * *", (st+i*7)%60, (st+i)%24))
				jd = schedule.JobDef{Type: schedule.Prune, Spec: sp, Params: schedule.Params{KeepLatest: 2}}
			}
			d, err := schedule.NewDefinition(fmt.Sprintf("s%03d-%02d", st, i), root, time.Time{}, jd)
			if err != nil {
				b.Fatal(err)
			}
			defs = append(defs, d)
		}
	}
	clk := &clock{t: time.Date(2026, 6, 1, 0, 0, 30, 0, time.UTC)}
	var mu sync.Mutex
	var latest time.Duration
	var tickStart time.Time
	s := &schedule.Scheduler{StatePath: filepath.Join(b.TempDir(), "state.json"), Clock: clk.Now,
		Run: func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
			mu.Lock()
			latest = max(latest, time.Since(tickStart))
			mu.Unlock()
			return schedule.RunResult{OK: true}, nil
		}}
	if n := loadDefs(b, s, defs); n != 2000 {
		b.Fatalf("%d jobs", n)
	}
	ctx := context.Background()
	b.Run("idle", func(b *testing.B) {
		s.RunDue(ctx)
		c0 := cpuTime()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			clk.Add(time.Millisecond)
			s.RunDue(ctx)
			s.NextWake(clk.Now())
		}
		b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/tick")
	})
	b.Run("due", func(b *testing.B) {
		var c time.Duration
		for i := 0; i < b.N; i++ {
			clk.Set(clk.Now().Truncate(time.Minute).Add(time.Minute)) // 100 checks due
			latest, tickStart = 0, time.Now()
			c0 := cpuTime()
			outs := s.RunDue(ctx)
			s.NextWake(clk.Now())
			c += cpuTime() - c0
			if ran(outs) < 100 {
				b.Fatalf("%d ran, want at least the 100 checks", ran(outs))
			}
		}
		b.ReportMetric(float64(c)/float64(b.N)/1e6, "cpu-ms/tick")
		b.ReportMetric(float64(latest)/1e6, "max-start-ms")
	})
}

// loadDefs registers defs with s and loads them (Reload), failing b when
// either fails, and returns how many jobs s then holds.
func loadDefs(b *testing.B, s *schedule.Scheduler, defs []schedule.Definition) int {
	b.Helper()
	if err := s.Register(defs...); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Reload(); err != nil {
		b.Fatal(err)
	}
	return len(s.Jobs())
}

// cpuTime is the process's CPU time (user and system): on a machine
// shared with other work, a truer cost than the time a tick took.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ran(outs []schedule.RunOutcome) int {
	n := 0
	for _, o := range outs {
		if o.Status == schedule.Ran {
			n++
		}
	}
	return n
}
