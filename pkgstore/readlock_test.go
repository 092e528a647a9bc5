package pkgstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// flockStore is an opened store of one release (closed when the test
// ends), for the tests of the lock's flock: skipped on Windows.
func flockStore(t *testing.T) *pkgstore.Store {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("flock: Unix")
	}
	return storetest.Open(t, storetest.New(t).Pkg("core/a/1.0.0/20200101000000").Root)
}

// TestReadLockHeld: where the lock can be taken, ReadLock holds it shared
// (a writer cannot take it) until unlock.
func TestReadLockHeld(t *testing.T) {
	st := flockStore(t)
	unlock, without, err := st.ReadLock(context.Background(), 0)
	if err != nil || without != nil {
		t.Fatalf("ReadLock: without %v, err %v", without, err)
	}
	if _, err := st.Lock(context.Background(), 0); !errors.Is(err, pkgstore.ErrLocked) {
		t.Fatalf("Lock while read-locked: %v, want ErrLocked", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	release, err := st.Lock(context.Background(), 0)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	release()
}

// TestReadLockUnavailable: where the lock file is absent and may not be
// created (a store another user owns; for a normal user, a read-only
// one), ReadLock goes on without it, saying why, and its unlock does
// nothing; another error (the lock held by a writer) is returned.
func TestReadLockUnavailable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ownership and modes: Unix")
	}
	b := storetest.New(t).Pkg("core/a/1.0.0/20200101000000")
	pkgs := filepath.Join(b.Root, "hab", "pkgs")
	if os.Geteuid() == 0 {
		if err := os.Chown(pkgs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chown(pkgs, 0, 0) })
	} else {
		if err := os.Chmod(pkgs, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(pkgs, 0o755) })
	}
	st, err := pkgstore.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	unlock, without, err := st.ReadLock(context.Background(), 0)
	if err != nil || !errors.Is(without, pkgstore.ErrLockUnavailable) || unlock == nil {
		t.Fatalf("ReadLock: without %v, err %v; want ErrLockUnavailable as without", without, err)
	}
	if err := unlock(); err != nil {
		t.Errorf("unlock of no lock: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(pkgs, pkgstore.LockFile)); !os.IsNotExist(err) {
		t.Errorf("the lock file was created: %v", err)
	}
}

// TestReadLockHeldByWriter: a writer's lock held past the timeout is an
// error, not a read without the lock.
func TestReadLockHeldByWriter(t *testing.T) {
	st := flockStore(t)
	release, err := st.Lock(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	unlock, without, err := st.ReadLock(context.Background(), 0)
	if err == nil || errors.Is(err, pkgstore.ErrLockUnavailable) || without != nil || unlock != nil {
		t.Fatalf("ReadLock under a writer: unlock %v, without %v, err %v; want the lock's error", unlock != nil, without, err)
	}
}
