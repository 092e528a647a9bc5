package schedule_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestJobNotRunIsCounted: a due job hab-gc cannot
// run (its store locked past the timeout) is logged at ERROR and reported
// to NotRun (the daemon's hab_gc_scheduled_jobs_not_run_total), each
// attempt; it then runs once the store is free.
func TestJobNotRunIsCounted(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("a", prune(root, "17 * * * *"))
	s := e.scheduler()
	s.LockTimeout = 100 * time.Millisecond
	logs := &bytes.Buffer{}
	s.Logger = slog.New(slog.NewTextHandler(logs, nil))
	var notRun []string
	s.NotRun = func(j schedule.Job, why error) { notRun = append(notRun, j.Key+": "+why.Error()) }
	e.reload(s)
	j := onlyJob(t, s)
	unlock := storetest.HoldLock(t, root)
	e.clock.Add(time.Hour)
	s.RunDue(context.Background())
	s.RunDue(context.Background())
	if len(notRun) != 2 || !strings.Contains(notRun[0], j.Key) {
		t.Fatalf("NotRun calls: %q", notRun)
	}
	if !strings.Contains(logs.String(), "level=ERROR msg=\"job not run") {
		t.Fatalf("not logged at ERROR:\n%s", logs)
	}
	unlock()
	s.RunDue(context.Background())
	if e.count(j.Key) != 1 {
		t.Fatalf("runs after the store was freed: %d", e.count(j.Key))
	}
}
