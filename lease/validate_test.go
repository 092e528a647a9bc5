package lease_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestAcquireValidates: a lease on an ident that
// names no package, or a release without its version, is refused and
// writes nothing (Ident{} was written as "/" and made every plan fail;
// Ident{core, redis, "", R} as core/redis, protecting the whole package);
// an empty FS root is refused (it was the working directory), as
// everywhere else (pkgstore.RequireFSRoot).
func TestAcquireValidates(t *testing.T) {
	root := storeRoot(t)
	for name, id := range map[string]pkgstore.Ident{
		"zero":                {},
		"release, no version": {Origin: "core", Name: "redis", Release: "20200101000000"},
		"no name":             {Origin: "core"},
		"a slash in a part":   {Origin: "core", Name: "re/dis"},
		"version, no name":    {Origin: "core", Version: "1.0"},
	} {
		t.Run(name, func(t *testing.T) {
			if l, err := lease.Acquire(root, "test", id); !errors.Is(err, lease.ErrBadIdent) {
				if l != nil {
					l.Release()
				}
				t.Fatalf("Acquire(%+v): %v, want ErrBadIdent", id, err)
			}
			if _, err := os.Stat(lease.Dir(root)); !os.IsNotExist(err) {
				t.Errorf("lease directory: %v, want none", err)
			}
		})
	}
	t.Run("empty FS root", func(t *testing.T) {
		wd := testtool.TempDir(t)
		t.Chdir(wd)
		if err := os.MkdirAll(filepath.Join(wd, pkgstore.StoreDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := lease.Acquire("", "test", pkgstore.MustParseIdent("core/redis")); !errors.Is(err, pkgstore.ErrNoStore) {
			t.Fatalf("Acquire(\"\"): %v, want ErrNoStore", err)
		}
		if _, _, err := lease.Read(""); !errors.Is(err, pkgstore.ErrNoStore) {
			t.Fatalf("Read(\"\"): %v, want ErrNoStore", err)
		}
		if _, err := os.Stat(filepath.Join(wd, lease.RelDir)); !os.IsNotExist(err) {
			t.Errorf("a lease directory under the working directory: %v", err)
		}
	})
}
