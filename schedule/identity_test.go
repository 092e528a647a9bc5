package schedule_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestIdentityPersisted (issue 25 item 10): the identity randomized times
// are drawn with is kept in the state: a re-created container (a new host
// name, the same state volume) keeps every job's time; a new state takes
// the machine's identity; ForceMachine (an explicit HAB_GC_MACHINE_ID)
// replaces the persisted one.
func TestIdentityPersisted(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "@daily-random"))
	s := e.scheduler()
	s.Machine = "pod-1"
	e.reload(s)
	first := onlyJob(t, s).Cron
	for _, pod := range []string{"pod-2", "pod-3", "pod-4"} {
		s := e.scheduler()
		s.Machine = pod
		e.reload(s)
		if got := onlyJob(t, s).Cron; got != first {
			t.Fatalf("%s: the time moved from %q to %q", pod, first, got)
		}
		ro := e.scheduler()
		ro.Machine, ro.ReadOnly = pod, true
		e.reload(ro)
		if got := onlyJob(t, ro).Cron; got != first {
			t.Fatalf("%s, read only (schedule list): %q, want %q", pod, got, first)
		}
	}
	st, err := schedule.LoadState(e.state)
	if err != nil || st.Machine != "pod-1" {
		t.Fatalf("state identity %q (%v), want pod-1", st.Machine, err)
	}
	var moved bool
	for _, id := range []string{"explicit-1", "explicit-2"} {
		f := e.scheduler()
		f.Machine, f.ForceMachine = id, true
		e.reload(f)
		moved = moved || onlyJob(t, f).Cron != first
	}
	if st, _ := schedule.LoadState(e.state); st.Machine != "explicit-2" || !moved {
		t.Fatalf("ForceMachine: state identity %q, time moved %v", st.Machine, moved)
	}
}
