package schedule_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestIdentityPersisted: the identity randomized times
// are drawn with is kept in the state for its FS root: a re-created
// container (another identity at its FS root, the same state volume)
// keeps every job's time; a new state takes the FS root's identity; an
// explicit Machine (HAB_GC_MACHINE_ID) replaces the persisted one.
func TestIdentityPersisted(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	canonical, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	setID := func(id string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "etc", "machine-id"), []byte(id+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.write("a", prune(root, "@daily-random"))
	setID("pod-1")
	s := e.scheduler()
	e.reload(s)
	first := onlyJob(t, s).Cron
	for _, pod := range []string{"pod-2", "pod-3", "pod-4"} {
		setID(pod)
		s := e.scheduler()
		e.reload(s)
		if got := onlyJob(t, s).Cron; got != first {
			t.Fatalf("%s: the time moved from %q to %q", pod, first, got)
		}
		ro := e.scheduler()
		ro.ReadOnly = true
		e.reload(ro)
		if got := onlyJob(t, ro).Cron; got != first {
			t.Fatalf("%s, read only (schedule list): %q, want %q", pod, got, first)
		}
	}
	st, err := schedule.LoadState(e.state)
	if err != nil || st.Machines[canonical] != "pod-1" {
		t.Fatalf("state identities %q (%v), want pod-1 for %s", st.Machines, err, canonical)
	}
	var moved bool
	for _, id := range []string{"explicit-1", "explicit-2"} {
		f := e.scheduler()
		f.Machine = id
		e.reload(f)
		moved = moved || onlyJob(t, f).Cron != first
	}
	if st, _ := schedule.LoadState(e.state); st.Machines[canonical] != "explicit-2" || !moved {
		t.Fatalf("Machine: state identities %q, time moved %v", st.Machines, moved)
	}
}
