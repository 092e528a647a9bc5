//go:build unix

package schedule_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/schedule"
)

// A FIFO among the definitions or at the state file's name is an error
// naming it; nothing waits for a writer.
func TestFIFOsNeverBlock(t *testing.T) {
	within := func(t *testing.T, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("still running after 10s: hung on a FIFO")
		}
	}
	t.Run("definition", func(t *testing.T) {
		e := newEnv(t)
		e.write("a", prune(e.store(), "@hourly-random"))
		fifo := filepath.Join(e.dir, "b.toml")
		if err := unix.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		var defs []schedule.Definition
		var errs []error
		within(t, func() { defs, errs = schedule.LoadDir(e.dir) })
		if len(defs) != 1 || len(errs) != 1 || !strings.Contains(errs[0].Error(), fifo) || !strings.Contains(errs[0].Error(), "named pipe") {
			t.Fatalf("got %d definitions, errors %v; want a, and an error naming %s as a named pipe", len(defs), errs, fifo)
		}
	})
	t.Run("state", func(t *testing.T) {
		e := newEnv(t)
		if err := unix.Mkfifo(e.state, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		var err error
		within(t, func() { _, err = schedule.LoadState(e.state) })
		if err == nil || !strings.Contains(err.Error(), e.state) {
			t.Fatalf("got %v, want an error naming %s", err, e.state)
		}
		if fi, _ := os.Lstat(e.state); fi.Mode()&os.ModeNamedPipe == 0 {
			t.Error("the FIFO was replaced")
		}
	})
}
