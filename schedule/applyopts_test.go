package schedule_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// A scheduled prune takes Apply's settle pause from the
// Scheduler (Settle), and OnPhase sees each phase of it, with its job:
// the scan, the planning, then Apply's.
func TestSchedulerSettleAndPhases(t *testing.T) {
	tests := []struct {
		name   string
		settle time.Duration
		// the pause between settling and re-checking, when there is one
		min, max time.Duration
	}{
		{name: "settle 300ms", settle: 300 * time.Millisecond, min: 300 * time.Millisecond, max: retention.DefaultSettle - 500*time.Millisecond},
		{name: "no settle", settle: retention.NoSettle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			b := hostStore(t)
			b.Old("core/a/1/1", "core/a/2/2", "core/a/3/3")
			e.write("p", schedtest.Prune(b.Root, "@hourly-random"))
			s := e.scheduler()
			s.Run = nil // the real prune
			var mu sync.Mutex
			var phases []retention.Phase
			at := map[retention.Phase]time.Time{}
			var jobs []string
			s.Settle = tt.settle
			s.OnPhase = func(j schedule.Job, ev retention.PhaseEvent) {
				mu.Lock()
				defer mu.Unlock()
				if len(phases) == 0 || phases[len(phases)-1] != ev.Phase {
					phases = append(phases, ev.Phase)
				}
				if _, ok := at[ev.Phase]; !ok {
					at[ev.Phase] = time.Now()
				}
				jobs = append(jobs, j.Key)
			}
			e.reload(s)
			key := s.Jobs()[0].Key
			o, err := s.Trigger(context.Background(), key)
			if err != nil || o.Status != schedule.Ran || o.Result.Removed != 2 {
				t.Fatalf("trigger: %+v, %v", o, err)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []retention.Phase{retention.PhaseScan, retention.PhasePlan, retention.PhaseRescan, retention.PhaseHide,
				retention.PhaseSettle, retention.PhaseRecheck, retention.PhaseDelete}
			if tt.settle < 0 {
				want = slices.DeleteFunc(want, func(p retention.Phase) bool { return p == retention.PhaseSettle })
			}
			if !slices.Equal(phases, want) {
				t.Errorf("phases %v, want %v", phases, want)
			}
			for _, k := range jobs {
				if k != key {
					t.Fatalf("a phase event for job %q, want %q", k, key)
				}
			}
			if tt.settle > 0 {
				if pause := at[retention.PhaseRecheck].Sub(at[retention.PhaseSettle]); pause < tt.min || pause > tt.max {
					t.Errorf("settled %v, want Settle %v (not the default %v)", pause, tt.settle, retention.DefaultSettle)
				}
			}
		})
	}
}
