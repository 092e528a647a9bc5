package schedule_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestServePicksUpLateStore: a definition whose store
// does not exist yet (mounted after the daemon started) is rejected, and
// loaded by Serve once the store appears, without a SIGHUP.
func TestServePicksUpLateStore(t *testing.T) {
	e := newEnv(t)
	late := testtool.TempDir(t)
	e.write("late", fmt.Sprintf("fs_root = %q\n[check]\nschedule = \"17 * * * *\"\n", late))
	s := e.scheduler()
	if probs, err := s.Reload(); err != nil || len(probs) != 1 {
		t.Fatalf("reload: %v %v", probs, err)
	}
	e.serve(s)
	time.Sleep(200 * time.Millisecond)
	if err := os.MkdirAll(filepath.Join(late, "hab", "pkgs"), 0o755); err != nil { // the mount
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Jobs()) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if len(s.Jobs()) != 1 {
		t.Fatalf("the store that appeared is not picked up: jobs %+v", s.Jobs())
	}
}
