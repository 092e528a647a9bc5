package watch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/watch"
)

// TestWaitsForFetchedArchive: a purge that comes while the
// plan keeps everything for an install elsewhere that only the artifact
// cache shows (an archive of a release that is not installed, just
// fetched: Habitat verifies it before it makes any install directory)
// waits and purges once that install is over, instead of applying a plan
// that removes nothing and forgetting the package.
func TestWaitsForFetchedArchive(t *testing.T) {
	b, in := fixture(t)
	// The clock runs 2h ahead: the fresh archive is 2h "old" by it.
	if err := in.Cache(storetest.Archive{Ident: "core/zlib/1.3/20260101000000"}, 0); err != nil {
		t.Fatal(err)
	}
	// The purge at start of core/redis waits for that install too.
	w := startOnly(t, b.Root, watch.Options{All: true, InstallWindow: 3 * time.Hour})
	if err := in.Install("core/nginx/1.22/20260101000000"); err != nil {
		t.Fatal(err)
	}
	w.none(t, 4*delay)
	if !strings.Contains(w.log.String(), "an install is in progress") || !strings.Contains(w.log.String(), "core-zlib-1.3-20260101000000") {
		t.Errorf("the log does not say why the purge waits:\n%s", w.log)
	}
	installed(t, b, map[string]bool{"core/nginx/1.19/20190101000000": true, "core/nginx/1.20/20200101000000": true})
	// The install is over: zlib is installed from that archive.
	if err := in.Install("core/zlib/1.3/20260101000000"); err != nil {
		t.Fatal(err)
	}
	var p watch.Purge
	for p = w.next(t, 20*time.Second); p.Package.String() != "core/nginx"; p = w.next(t, 20*time.Second) {
	}
	if p.Err != nil || p.Result.Removed != 2 {
		t.Fatalf("purge %s: %v %+v", p.Package, p.Err, p.Result)
	}
	installed(t, b, map[string]bool{"core/nginx/1.19/20190101000000": false, "core/nginx/1.20/20200101000000": false,
		"core/nginx/1.21/20200201000000": true, "core/nginx/1.22/20260101000000": true})
}
