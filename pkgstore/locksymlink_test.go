//go:build unix

package pkgstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// The store's lock file is written (created, its pid
// written) only in a store reached from the FS root without a symlink.
// With hab or hab/pkgs a symlink to the store moved outside, Lock is
// refused (ErrUnsafeLockFile, naming the symlink) and creates nothing
// there; ReadLock creates nothing either and reports the lock unavailable
// (ErrLockUnavailable: a reader goes on without it, saying so). A lock
// file already there is still taken shared: opening it writes nothing.
// The FS root itself may be a symlink.
func TestLockNotBelowSymlink(t *testing.T) {
	for _, link := range []string{"hab", "hab/pkgs"} {
		t.Run(link, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/zlib/1.3/20240101000000")
			outside := testtool.TempDir(t)
			at, moved := b.Path(link), filepath.Join(outside, "moved")
			if err := os.Rename(at, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, at); err != nil {
				t.Fatal(err)
			}
			st := openStore(t, b.Root)
			lockFile := filepath.Join(b.Path("hab/pkgs"), pkgstore.LockFile)
			if _, err := rlock(st); !errors.Is(err, pkgstore.ErrLockUnavailable) || !strings.Contains(err.Error(), at+" is a symlink") {
				t.Errorf("ReadLock: %v, want ErrLockUnavailable naming %s", err, at)
			}
			if _, err := os.Lstat(lockFile); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("ReadLock created the lock file through the symlink: %v", err)
			}
			unlock, err := st.Lock(context.Background(), 0)
			if err == nil {
				unlock()
			}
			if !errors.Is(err, pkgstore.ErrUnsafeLockFile) || !errors.Is(err, safeio.ErrSymlink) || !strings.Contains(err.Error(), at+" is a symlink") {
				t.Errorf("Lock: %v, want ErrUnsafeLockFile naming %s", err, at)
			}
			if _, err := os.Lstat(lockFile); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("Lock created the lock file through the symlink: %v", err)
			}
			if err := os.WriteFile(lockFile, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if unlock, err := rlock(st); err != nil {
				t.Errorf("ReadLock of an existing lock file: %v", err)
			} else {
				unlock()
			}
		})
	}
	t.Run("symlinked FS root", func(t *testing.T) {
		b := storetest.New(t)
		root := filepath.Join(testtool.TempDir(t), "root")
		os.Symlink(b.Root, root)
		unlock, err := openStore(t, root).Lock(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		unlock()
	})
}
