package schedule_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestStateInsideSchedulesDirNoLoop: a state file kept
// in the schedules directory does not make every reload's write trigger
// the next reload: only definition files (*.toml) and the directory
// itself are changes.
func TestStateInsideSchedulesDirNoLoop(t *testing.T) {
	e := newEnv(t)
	e.state = filepath.Join(e.dir, "state.json")
	root := e.store()
	e.write("a", prune(root, "17 * * * *"))
	s := e.scheduler()
	logs := &testtool.SyncBuffer{}
	s.Logger = slog.New(slog.NewTextHandler(logs, nil))
	e.reload(s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, nil) }()
	time.Sleep(300 * time.Millisecond)
	e.write("b", prune(root, "19 * * * *")) // one real change
	time.Sleep(2 * time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "reloaded schedule definitions"); n != 1 {
		t.Fatalf("%d reloads in 2 s for one change, want 1", n)
	}
	if len(s.Jobs()) != 2 {
		t.Fatalf("jobs: %d", len(s.Jobs()))
	}
}
