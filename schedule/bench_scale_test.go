//go:build unix

package schedule_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// BenchmarkScale10k: 10,000 definitions over 100 stores
// (each an explicit daily prune at a time of its own). heap-MB-1 is the
// live heap after the first Reload, heap-MB-4 after three more (reloads
// must not grow it); state-KB is the state file (the record of a run is
// appended to its journal: see BenchmarkTick10k).
func BenchmarkScale10k(b *testing.B) {
	var defs []schedule.Definition
	for st := 0; st < 100; st++ {
		root := storetest.New(b).Root
		for i := 0; i < 100; i++ {
			sp, _ := schedule.ParseSpec(fmt.Sprintf("%d %d * * *", (st+i*7)%60, (st+i)%24))
			jd := schedule.JobDef{Type: schedule.Prune, Spec: sp, Params: schedule.Params{KeepLatest: 2}}
			d, err := schedule.NewDefinition(fmt.Sprintf("s%03d-%03d", st, i), root, time.Time{}, jd)
			if err != nil {
				b.Fatal(err)
			}
			defs = append(defs, d)
		}
	}
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	for b.Loop() {
		clk := &clock{t: time.Date(2026, 6, 1, 0, 0, 30, 0, time.UTC)}
		state := filepath.Join(b.TempDir(), "state.json")
		s := &schedule.Scheduler{StatePath: state, Clock: clk.Now,
			Run: func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
				return schedule.RunResult{OK: true}, nil
			}}
		if err := s.Register(defs...); err != nil {
			b.Fatal(err)
		}
		base := heap()
		if _, err := s.Reload(); err != nil {
			b.Fatal(err)
		}
		first := heap() - base
		for i := 0; i < 3; i++ {
			if _, err := s.Reload(); err != nil {
				b.Fatal(err)
			}
		}
		after := heap() - base
		fi, _ := os.Stat(state)
		b.ReportMetric(first, "heap-MB-1")
		b.ReportMetric(after, "heap-MB-4")
		b.ReportMetric(float64(fi.Size())/1024, "state-KB")
		runtime.KeepAlive(s)
	}
}
