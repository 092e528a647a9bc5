//go:build linux

package pkgstore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// fullTmpfs mounts a 1 MiB tmpfs at a new directory, builds a store there
// (build adds to it) and fills what is left with a file until a write
// fails with ENOSPC: the file system is 100% full. Root only (the
// mount); it skips otherwise, saying why.
func fullTmpfs(t *testing.T, build func(b *storetest.Builder)) *storetest.Builder {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a size-limited tmpfs (mount -t tmpfs -o size=1m)")
	}
	dir := filepath.Join(testtool.TempDir(t), "fs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("hab-gc-full", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	b := storetest.At(t, dir)
	build(b)
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte{1}, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, unix.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	for { // the last partial page too
		if _, err := f.Write([]byte{1}); err != nil {
			break
		}
	}
	return b
}

// On a 100% full file system the pid cannot be written to
// the lock file (ENOSPC), yet the lock is taken, held and released, and a
// second Store waiting for it learns the holder from the kernel.
func TestLockOnFullFileSystem(t *testing.T) {
	for _, existing := range []bool{false, true} {
		name := "new lock file"
		if existing {
			name = "lock file from an earlier run"
		}
		t.Run(name, func(t *testing.T) {
			b := fullTmpfs(t, func(b *storetest.Builder) {
				b.Pkg("core/a/1/20200101000000")
				if existing {
					b.File(pkgstore.StoreDir+"/"+pkgstore.LockFile, "")
				}
			})
			if err := os.WriteFile(filepath.Join(b.Root, "probe"), []byte("x"), 0o600); !errors.Is(err, unix.ENOSPC) {
				t.Fatalf("the file system is not full: writing a byte gave %v", err)
			}
			st := openStore(t, b.Root)
			r := tryLock(t, st, 0)
			if r.err != nil {
				t.Fatalf("Lock on a full file system: %v", r.err)
			}
			if err := st.HoldsLock(); err != nil {
				t.Errorf("HoldsLock while locked: %v", err)
			}
			_, err := openStore(t, b.Root).Lock(context.Background(), 0)
			var le *pkgstore.LockedError
			if !errors.As(err, &le) || le.Holder != os.Getpid() {
				t.Errorf("a second Lock: %v, want a LockedError naming pid %d", err, os.Getpid())
			}
			if got, _ := os.ReadFile(filepath.Join(b.Root, pkgstore.StoreDir, pkgstore.LockFile)); len(got) != 0 {
				t.Errorf("lock file holds %q, want it empty (no half-written pid)", got)
			}
			if err := r.unlock(); err != nil {
				t.Fatal(err)
			}
			if err := st.HoldsLock(); !errors.Is(err, pkgstore.ErrNotLocked) {
				t.Errorf("HoldsLock after unlock: %v, want ErrNotLocked", err)
			}
			r = tryLock(t, openStore(t, b.Root), 0)
			if r.err != nil {
				t.Fatalf("Lock once released: %v", r.err)
			}
			r.unlock()
		})
	}
}
