package lease_test

import (
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// Lease.Path is the lease file's path, in lease.Dir, as
// every other Path() is a path (it was the bare file name).
func TestLeasePathIsAPath(t *testing.T) {
	root := storetest.New(t).Root
	l, err := lease.Acquire(root, "test", pkgstore.MustParseIdent("core/redis"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if !filepath.IsAbs(l.Path()) || filepath.Dir(l.Path()) != lease.Dir(root) {
		t.Errorf("Path() = %q, want a file in %s", l.Path(), lease.Dir(root))
	}
}
