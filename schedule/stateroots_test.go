package schedule_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestStateBesideStores: with StateBesideStores each FS root's jobs keep
// their state, and draw their times with the identity, of their own FS
// root: a definition added for another FS root moves neither, and each
// file holds its own FS root's jobs only.
func TestStateBesideStores(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	roots := []string{e.store(), e.store()}
	for i, r := range roots {
		if err := os.MkdirAll(filepath.Join(r, "etc"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r, "etc", "machine-id"), []byte{byte('a' + i), '\n'}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	beside := func() *schedule.Scheduler {
		s := e.scheduler()
		s.StatePath, s.StateBesideStores = "", true
		return s
	}
	e.write("a", prune(roots[0], "@daily-random"))
	s := beside()
	e.reload(s)
	before := onlyJob(t, s)
	file, _ := schedule.DefaultStatePath(roots[0])
	was, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	e.write("b", prune(roots[1], "@daily-random"))
	s = beside()
	e.reload(s)
	if len(s.Jobs()) != 2 {
		t.Fatalf("jobs %+v, want two", s.Jobs())
	}
	for _, j := range s.Jobs() {
		if j.Key == before.Key && j.Cron != before.Cron {
			t.Errorf("with a definition for another FS root, the job's time moved from %q to %q", before.Cron, j.Cron)
		}
	}
	if now, err := os.ReadFile(file); err != nil || string(now) != string(was) {
		t.Errorf("the first FS root's state changed (%v):\n%s\nwas\n%s", err, now, was)
	}
	for i, r := range roots {
		p, _ := schedule.DefaultStatePath(r)
		st, err := schedule.LoadState(p)
		if err != nil || len(st.Jobs) != 1 || len(st.Schedules) != 1 || len(st.Machines) != 1 {
			t.Fatalf("state of FS root %d: %+v, %v; want its own job, schedule and identity only", i, st, err)
		}
		for _, js := range st.Jobs {
			if js.Members[0] != string(rune('a'+i)) {
				t.Errorf("state of FS root %d holds %+v", i, js)
			}
		}
	}
}
