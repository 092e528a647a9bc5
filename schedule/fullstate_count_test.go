//go:build linux

package schedule_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestRunCountAcrossFullStateDisk: runs made while the
// state file could not be written (a full disk) are counted once it can
// be again: the count in the state is every run, not only the recorded
// ones (15 runs showed 5).
func TestRunCountAcrossFullStateDisk(t *testing.T) {
	e := newEnv(t)
	dir, fill := fullFS(t)
	e.state = filepath.Join(dir, "state.json")
	e.write("a", prune(e.store(), "17 * * * *"))
	s := e.loaded()
	j := onlyJob(t, s)
	hour := func(n int) {
		for i := 0; i < n; i++ {
			e.clock.Add(time.Hour)
			s.RunDue(context.Background())
		}
	}
	hour(5)
	fill()
	hour(5)
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	hour(5)
	if n := e.count(j.Key); n != 15 {
		t.Fatalf("runs = %d, want 15", n)
	}
	st, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Jobs[j.Key].Runs; got != 15 {
		t.Fatalf("the state counts %d runs, want 15", got)
	}
}
