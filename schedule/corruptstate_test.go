package schedule_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// corruptions are state files a crash, a full disk or a stray editor
// leave: nothing, garbage, JSON cut short.
func corruptions(t *testing.T, state string) map[string][]byte {
	whole, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"empty":     {},
		"garbage":   []byte("\x00\x17not json at all"),
		"truncated": whole[:len(whole)/2],
	}
}

// asideFiles returns the state files kept aside next to state.
func asideFiles(t *testing.T, state string) []string {
	t.Helper()
	m, err := filepath.Glob(state + ".corrupt-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// eachCorruption runs test once for each of corruptions (t.Run, by its
// name), each time on a new minute17Job environment whose first due run
// ran (runFirstDue) and whose state file was then overwritten with bad.
func eachCorruption(t *testing.T, test func(t *testing.T, e *env, s *schedule.Scheduler, j schedule.Job, bad []byte)) {
	e0, s0, j0 := minute17Job(t)
	e0.runFirstDue(s0, j0)
	for name, bad := range corruptions(t, e0.state) {
		t.Run(name, func(t *testing.T) {
			e, s, j := minute17Job(t)
			e.runFirstDue(s, j)
			if err := os.WriteFile(e.state, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			test(t, e, s, j, bad)
		})
	}
}

// TestCorruptStateRunningDaemonGoesOn: the state file
// damaged under a running scheduler (zero bytes, garbage, truncated JSON)
// is kept aside under a new name (its bytes as they were), rebuilt from
// memory, and the jobs go on running: the due time that ran is not run
// again and the next one runs.
func TestCorruptStateRunningDaemonGoesOn(t *testing.T) {
	eachCorruption(t, func(t *testing.T, e *env, s *schedule.Scheduler, j schedule.Job, bad []byte) {
		s.RunDue(context.Background()) // same hour: nothing due
		e.clock.Add(time.Hour)         // 01:20: 01:17 is due
		e.runDueWant(s, j.Key, 2, "runs = %d after the state file was damaged, want 2")
		aside := asideFiles(t, e.state)
		if len(aside) != 1 {
			t.Fatalf("damaged state kept aside as %v, want one file", aside)
		}
		if b, _ := os.ReadFile(aside[0]); !bytes.Equal(b, bad) {
			t.Fatalf("the file kept aside holds %q, want the damaged bytes %q", b, bad)
		}
		st, err := schedule.LoadState(e.state)
		if err != nil || st.Jobs[j.Key] == nil || st.Jobs[j.Key].Runs != 2 {
			t.Fatalf("state not rebuilt: %v %+v", err, st)
		}
		// Damaged again: a second file aside, the first kept.
		if err := os.WriteFile(e.state, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Hour)
		e.reload(s)
		e.runDueWant(s, j.Key, 3, "runs = %d, want 3")
		if aside := asideFiles(t, e.state); len(aside) != 2 {
			t.Fatalf("after a second damage the files aside are %v, want two (never overwritten)", aside)
		}
	})
}

// TestCorruptStateAtStart: a scheduler starting on a
// damaged state file (a daemon, --once) keeps it aside and starts anew,
// with a loud error, instead of refusing to start.
func TestCorruptStateAtStart(t *testing.T) {
	eachCorruption(t, func(t *testing.T, e *env, _ *schedule.Scheduler, j schedule.Job, bad []byte) {
		var logs strings.Builder
		s := e.scheduler() // a new scheduler starting on the damaged file
		s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		if _, err := s.Reload(); err != nil {
			t.Fatalf("a damaged state file stops the start: %v", err)
		}
		if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), ".corrupt-") {
			t.Fatalf("the damage is not reported loudly with the name it was kept as:\n%s", logs.String())
		}
		if aside := asideFiles(t, e.state); len(aside) != 1 {
			t.Fatalf("kept aside as %v, want one file", aside)
		}
		e.clock.Add(time.Hour) // 01:20
		e.runDueWant(s, j.Key, 2, "runs = %d after starting on a damaged state, want 2")
	})
}
