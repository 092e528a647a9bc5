package schedule_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestMissingDirKeepsEverything: a schedules directory
// that is briefly missing (a deploy swapping it) is not "no definitions":
// the reload fails, every schedule and job is kept, in the state and in
// the scheduler, and keeps running.
func TestMissingDirKeepsEverything(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "17 * * * *"))
	s := e.loaded()
	j := onlyJob(t, s)
	away := e.dir + ".old"
	if err := os.Rename(e.dir, away); err != nil {
		t.Fatal(err)
	}
	probs, err := s.Reload()
	if err != nil || len(probs) == 0 {
		t.Fatalf("a missing directory reloads without a problem: %v %v", probs, err)
	}
	if len(s.Jobs()) != 1 {
		t.Fatalf("jobs after the directory went: %+v", s.Jobs())
	}
	st, err := schedule.LoadState(e.state)
	if err != nil || st.Jobs[j.Key] == nil || len(st.Schedules) != 1 {
		t.Fatalf("the state lost the job: %v %+v", err, st)
	}
	e.clock.Add(time.Hour)
	e.runDueWant(s, j.Key, 1, "runs while the directory is away: %d")
}

// TestServeFollowsReplacedDir: Serve watches the
// directory by its name: when it is replaced (renamed away, a new one
// renamed into place), the new one is loaded and watched.
func TestServeFollowsReplacedDir(t *testing.T) {
	e := newEnv(t)
	root := e.store()
	e.write("a", prune(root, "17 * * * *"))
	s := e.loaded()
	e.serve(s)
	time.Sleep(200 * time.Millisecond) // the watch is set up
	next := filepath.Join(filepath.Dir(e.dir), "next")
	os.Mkdir(next, 0o755)
	os.WriteFile(filepath.Join(next, "a.toml"), []byte(prune(root, "17 * * * *")), 0o644)
	os.WriteFile(filepath.Join(next, "b.toml"), []byte(prune(root, "19 * * * *")), 0o644)
	if err := os.Rename(e.dir, e.dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, e.dir); err != nil {
		t.Fatal(err)
	}
	waitJobs := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for len(s.Jobs()) != n && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(s.Jobs()) != n {
			t.Fatalf("jobs: %d, want %d", len(s.Jobs()), n)
		}
	}
	waitJobs(2)
	// The new directory is watched: a file written into it loads.
	e.write("c", prune(root, "21 * * * *"))
	waitJobs(3)
}
