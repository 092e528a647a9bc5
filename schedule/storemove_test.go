package schedule_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestStoreMovedBehindSymlinkKeepsIdentity: hab/pkgs
// moved to another disk and symlinked back is the same store: its jobs
// keep their keys, their randomized times and their history (before, the
// key and the time changed, 32 7 * * 4 to 44 1 * * 2, and the runs
// started over).
func TestStoreMovedBehindSymlinkKeepsIdentity(t *testing.T) {
	testtool.NeedSymlinks(t) // the store moves behind a symlink
	e := newEnv(t)
	root := e.store()
	e.write("a", prune(root, "@weekly-random")+"[check]\nschedule = \"17 * * * *\"\n")
	s := e.loaded()
	before := map[string]string{}
	for _, j := range s.Jobs() {
		before[j.Key] = j.Cron
	}
	e.clock.Add(8 * 24 * time.Hour)
	s.RunDue(context.Background())
	pkgs := filepath.Join(root, "hab", "pkgs")
	disk := filepath.Join(testtool.TempDir(t), "pkgs")
	if err := os.Rename(pkgs, disk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(disk, pkgs); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ { // the move seen, then remembered
		s = e.scheduler()
		e.reload(s)
		after := map[string]string{}
		for _, j := range s.Jobs() {
			after[j.Key] = j.Cron
		}
		if len(after) != len(before) {
			t.Fatalf("round %d: jobs %v, want %v", round, after, before)
		}
		for k, c := range before {
			if after[k] != c {
				t.Fatalf("round %d: after the move the jobs are %v, want %v", round, after, before)
			}
		}
		st, err := schedule.LoadState(e.state)
		if err != nil {
			t.Fatal(err)
		}
		for k := range before {
			if js := st.Jobs[k]; js == nil || js.Runs != 1 {
				t.Fatalf("round %d: job %s's history after the move: %+v", round, k, js)
			}
		}
	}
}
