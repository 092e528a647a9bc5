package schedule_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// OnPhase sees each phase of a scheduled prune, with its job: the scan,
// the planning, then Apply's.
func TestSchedulerPhases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := hostStore(t)
	b.Old("core/a/1/1", "core/a/2/2", "core/a/3/3")
	e.write("p", schedtest.Prune(b.Root, "@hourly-random"))
	s := e.scheduler()
	s.Run = nil // the real prune
	var mu sync.Mutex
	var phases []retention.Phase
	var jobs []string
	s.OnPhase = func(j schedule.Job, ev retention.PhaseEvent) {
		mu.Lock()
		defer mu.Unlock()
		if len(phases) == 0 || phases[len(phases)-1] != ev.Phase {
			phases = append(phases, ev.Phase)
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
	if !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	for _, k := range jobs {
		if k != key {
			t.Fatalf("a phase event for job %q, want %q", k, key)
		}
	}
}
