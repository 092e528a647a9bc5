package watch_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/watch"
)

// TestFutureStampedLeftoverDoesNotHoldPurge: a killed
// install's leftover in core/redis whose modification time is in 2031
// (`touch -d`, or kept from an archive) held every purge of the package
// as "an install in progress" until 2031. It is judged by its inode
// change time instead, which the clock (2 h ahead) finds older than the
// install window: the purge goes ahead.
func TestFutureStampedLeftoverDoesNotHoldPurge(t *testing.T) {
	b, in := fixture(t)
	left := filepath.Join(b.Root, "hab", "pkgs", "core", "redis", "6.2.6", pkgstore.InstallTempPrefix+"-20200201000000abcdef")
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	future := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(left, future, future); err != nil {
		t.Fatal(err)
	}
	w := start(t, b.Root, watch.Options{})
	if err := in.Install("core/redis/7.0.1/20260101000000"); err != nil {
		t.Fatal(err)
	}
	restart(t, b.Root, "redis")
	p := w.next(t, 20*time.Second)
	if p.Package.String() != "core/redis" || p.Err != nil || p.Result == nil || p.Result.Removed != 1 {
		t.Fatalf("purge %s: %v %+v; log:\n%s", p.Package, p.Err, p.Result, w.log)
	}
	installed(t, b, map[string]bool{"core/redis/6.2.5/20200101000000": false})
}
