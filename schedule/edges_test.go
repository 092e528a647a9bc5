package schedule_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// hourlyJob is one @hourly-random prune, loaded, its logs kept.
func hourlyJob(t *testing.T) (*env, *schedule.Scheduler, *bytes.Buffer) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "@hourly-random"))
	s := e.scheduler()
	logs := &bytes.Buffer{}
	s.Logger = slog.New(slog.NewTextHandler(logs, nil))
	e.reload(s)
	return e, s, logs
}

// TestForwardClockJumpRecovers: after a run at a wrong, future clock
// reading, the job runs again at its next due time after the clock is
// right, and says so.
func TestForwardClockJumpRecovers(t *testing.T) {
	e, s, logs := hourlyJob(t)
	j := onlyJob(t, s)
	start := e.clock.Now()
	e.clock.Set(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	s.RunDue(context.Background())
	if e.count(j.Key) != 1 {
		t.Fatalf("runs at 2030: %d", e.count(j.Key))
	}
	e.clock.Set(start.Add(24 * time.Hour)) // the clock is put right
	s.RunDue(context.Background())
	sts, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	if next := sts[0].Next; next.Before(now) || next.After(now.Add(time.Hour)) {
		t.Fatalf("next run %v, want within the hour after %v", next, now)
	}
	e.clock.Add(61 * time.Minute)
	s.RunDue(context.Background())
	if e.count(j.Key) != 2 {
		t.Fatalf("after the clock was put right: %d runs, want 2", e.count(j.Key))
	}
	if !strings.Contains(logs.String(), "in the future") {
		t.Fatalf("the jump was not logged:\n%s", logs.String())
	}
}

// TestInvalidDefinitionKeepsState: a half-written save makes a definition
// invalid for one load; its job's history survives, and the job carries on
// once the file is whole again.
func TestInvalidDefinitionKeepsState(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	good := prune(root, "@hourly-random")
	e.write("a", good)
	s := e.loaded()
	j := onlyJob(t, s)
	e.clock.Add(2 * time.Hour)
	s.RunDue(context.Background())
	e.write("a", good[:len(good)/2]) // an editor's half-written save
	probs, err := s.Reload()
	if err != nil || len(probs) != 1 {
		t.Fatalf("reload: %v %v", err, probs)
	}
	if !regexp.MustCompile(`a\.toml:\d+:\d+: `).MatchString(probs[0].Error()) {
		t.Fatalf("problem does not name file and line: %v", probs[0])
	}
	st, _ := schedule.LoadState(e.state)
	if js := st.Jobs[j.Key]; js == nil || js.Runs != 1 {
		t.Fatalf("the job's history was dropped: %+v", js)
	}
	if _, ok := st.Schedules["a"]; !ok {
		t.Fatalf("the schedule's first-seen time was dropped: %+v", st.Schedules)
	}
	e.write("a", good)
	e.reload(s)
	if s.Jobs()[0].Key != j.Key {
		t.Fatal("key changed")
	}
	st, _ = schedule.LoadState(e.state)
	if js := st.Jobs[j.Key]; js == nil || js.Runs != 1 || js.LastDue == nil {
		t.Fatalf("history after the file is whole again: %+v", js)
	}
}

// TestDefinitionPositions: a rejected value is reported with its file,
// line and column.
func TestDefinitionPositions(t *testing.T) {
	e := newEnv(t)
	e.write("bad", fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@daily\"\nkeep_latest = -1\n", e.store()))
	s := e.scheduler()
	probs, _ := s.Reload()
	if len(probs) != 1 || !strings.Contains(probs[0].Error(), "bad.toml:4:1") {
		t.Fatalf("problems: %v", probs)
	}
}

// TestFSRootRules: a relative fs_root is refused; a root that does not
// exist yet is said, and its job's state kept until it does.
func TestFSRootRules(t *testing.T) {
	e := newEnv(t)
	e.write("rel", prune("srv/x", "@daily-random"))
	s := e.scheduler()
	probs, _ := s.Reload()
	if len(probs) != 1 || !strings.Contains(probs[0].Error(), "relative") {
		t.Fatalf("relative root: %v", probs)
	}
	e.remove("rel")

	root := e.store()
	e.write("late", prune(root, "@hourly-random"))
	e.reload(s)
	j := onlyJob(t, s)
	e.clock.Add(2 * time.Hour)
	s.RunDue(context.Background())
	// The store goes away (an unmounted /hab): said, state kept.
	moved := root + ".away"
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	probs, err := s.Reload()
	if err != nil || len(probs) != 1 || !strings.Contains(probs[0].Error(), "does not exist") {
		t.Fatalf("missing root: %v %v", err, probs)
	}
	st, _ := schedule.LoadState(e.state)
	if js := st.Jobs[j.Key]; js == nil || js.Runs != 1 {
		t.Fatalf("state dropped while the root is missing: %+v", js)
	}
	os.Rename(moved, root)
	e.reload(s)
	if onlyJob(t, s).Key != j.Key {
		t.Fatal("key changed")
	}
}

// TestStateFileRules: a symlinked state file and a state of an unknown
// version are refused, not replaced or read.
func TestStateFileRules(t *testing.T) {
	t.Run("symlink", func(t *testing.T) {
		testtool.NeedSymlinks(t)
		e := newEnv(t)
		e.write("a", prune(e.store(), "@hourly-random"))
		target := filepath.Join(testtool.TempDir(t), "elsewhere.json")
		os.WriteFile(target, []byte(`{"version": 1}`), 0o644)
		os.Symlink(target, e.state)
		s := e.scheduler()
		if _, err := s.Reload(); err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Fatalf("reload: %v", err)
		}
		if fi, err := os.Lstat(e.state); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatal("the symlink was replaced")
		}
		if _, err := schedule.LoadState(e.state); err == nil {
			t.Fatal("LoadState read through a symlink")
		}
	})
	t.Run("version", func(t *testing.T) {
		e := newEnv(t)
		os.WriteFile(e.state, []byte(`{"version": 2, "jobs": {}}`), 0o644)
		_, err := schedule.LoadState(e.state)
		if !errors.Is(err, schedule.ErrState) || !strings.Contains(err.Error(), "version 2") {
			t.Fatalf("got %v", err)
		}
	})
}
