package schedule_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMissingStoreBacksOff: a job whose store has gone
// (unmounted, moved) is not retried at every tick with an ERROR and a
// state rewrite each time (21 in 30 minutes): it is said once, retried at
// growing intervals, and run at the first tick after the store is back.
func TestMissingStoreBacksOff(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("a", prune(root, "17 * * * *"))
	s := e.scheduler()
	var mu sync.Mutex
	var logs bytes.Buffer
	s.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))
	e.reload(s)
	j := onlyJob(t, s)
	e.runFirstDue(s, j)
	pkgs := filepath.Join(root, "hab", "pkgs")
	moved := pkgs + ".away"
	if err := os.Rename(pkgs, moved); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Hour - 3*time.Minute) // 01:17: due, the store gone
	writes := 0
	last, _ := os.Stat(e.state)
	for m := 0; m < 30; m++ {
		s.RunDue(context.Background())
		if fi, err := os.Stat(e.state); err == nil && !os.SameFile(fi, last) {
			writes++
			last = fi
		}
		e.clock.Add(time.Minute)
	}
	mu.Lock()
	errs := strings.Count(logs.String(), "level=ERROR")
	mu.Unlock()
	if errs != 1 || writes > 1 {
		t.Fatalf("in 30 minutes with the store gone: %d ERROR lines and %d state writes, want 1 and at most 1:\n%s", errs, writes, logs.String())
	}
	if err := os.Rename(moved, pkgs); err != nil {
		t.Fatal(err)
	}
	s.RunDue(context.Background())
	if n := e.count(j.Key); n != 2 {
		t.Fatalf("runs = %d at the first tick after the store came back, want 2", n)
	}
}
