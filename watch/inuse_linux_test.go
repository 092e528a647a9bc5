package watch_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/watch"
)

// TestPurgeKeepsRunningRelease: with the policy's RootFinders left empty,
// a purge still keeps the release a running process executes.
func TestPurgeKeepsRunningRelease(t *testing.T) {
	t.Parallel()
	b, in := fixture(t)
	const running = "core/redis/6.2.5/20200101000000"
	bin := filepath.Join(b.PkgPath(running), "bin", "sleep")
	proctest.CopySleep(t, bin)
	proctest.Start(t, proctest.Exec, bin)
	w := start(t, b.Root, watch.Options{})
	if err := in.Install("core/redis/7.0.1/20260101000000"); err != nil {
		t.Fatal(err)
	}
	restart(t, b.Root, "redis")
	p := w.next(t, 20*time.Second)
	if p.Err != nil {
		t.Fatalf("purge: %v", p.Err)
	}
	installed(t, b, map[string]bool{running: true})
}
