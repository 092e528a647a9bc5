//go:build unix

package watch_test

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/watch"
)

// A FIFO where watch reads a file (a spec, a release's TDEPS) never
// blocks it: the purge still comes, and Run returns
// once cancelled (the test's cleanup waits for it). Before, a FIFO TDEPS
// hung the check for installs in progress in open(2).
func TestWatchNeverBlocksOnAFIFO(t *testing.T) {
	for _, at := range []string{
		"hab/pkgs/core/redis/6.2.6/20200201000000/TDEPS",
		"hab/sup/default/specs/fifo.spec",
	} {
		t.Run(at, func(t *testing.T) {
			b, in := fixture(t)
			if err := os.RemoveAll(b.Path(at)); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mkfifo(b.Path(at), 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			w := start(t, b.Root, watch.Options{})
			if err := in.Install("core/redis/7.0.1/20260101000000"); err != nil {
				t.Fatal(err)
			}
			restart(t, b.Root, "redis")
			p := w.next(t, 20*time.Second)
			if p.Package.String() != "core/redis" {
				t.Fatalf("purge of %s (%v), want core/redis", p.Package, p.Err)
			}
		})
	}
}
