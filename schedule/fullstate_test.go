//go:build linux

package schedule_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// fullFS mounts a small tmpfs on a new directory, for a state file, and
// returns it with a function that fills it up. It skips the test where
// that is not possible (not root, no mount rights).
func fullFS(t *testing.T) (dir string, fill func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	dir = testtool.TempDir(t)
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir, func() {
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				return
			}
		}
	}
}

// TestFullStateDiskKeepsRunning: a full file system
// under the state file does not stop the scheduler: Reload loads the
// definitions (logging that the state cannot be written), and due jobs
// run, each due time once.
func TestFullStateDiskKeepsRunning(t *testing.T) {
	e := newEnv(t)
	dir, fill := fullFS(t)
	e.state = filepath.Join(dir, "state.json")
	e.write("a", prune(e.store(), "17 * * * *"))
	s := e.loaded()
	j := onlyJob(t, s)
	fill()
	e.clock.Add(time.Hour)
	// A restart on the full disk.
	s2 := e.scheduler()
	probs, err := s2.Reload()
	if err != nil || len(probs) > 0 {
		t.Fatalf("reload on a full disk: %v %v", err, probs)
	}
	if len(s2.Jobs()) != 1 {
		t.Fatalf("jobs: %+v", s2.Jobs())
	}
	s2.RunDue(context.Background())
	s2.RunDue(context.Background())
	if e.count(j.Key) != 1 {
		t.Fatalf("runs on a full state disk: %d, want 1", e.count(j.Key))
	}
	// A new schedule is seen too (kept in memory).
	e.write("b", prune(e.store(), "19 * * * *"))
	if _, err := s2.Reload(); err != nil || len(s2.Jobs()) != 2 {
		t.Fatalf("reload of a new schedule on a full disk: %v %d jobs", err, len(s2.Jobs()))
	}
	e.clock.Add(time.Hour)
	s2.RunDue(context.Background())
	if e.count(j.Key) != 2 || e.count(s2.Jobs()[0].Key)+e.count(s2.Jobs()[1].Key) != 3 {
		t.Fatalf("runs: %v", e.runs)
	}
}
