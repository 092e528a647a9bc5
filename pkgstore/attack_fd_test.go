//go:build linux

package pkgstore_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"golang.org/x/sys/unix"
)

// TestScanLeaksNoDescriptor scans a store holding every kind of damage
// (and two releases of each package, so MeasureBeyond measures) each
// way, and MeasureSizes its releases, with as many descriptors open after
// as before.
func TestScanLeaksNoDescriptor(t *testing.T) {
	root, s := damagedStore(t)
	addNewest(t, s)
	fds := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd:", err)
		}
		return len(es)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, opts := range []pkgstore.Options{
		{Target: pkgstoretest.DefaultTarget, Now: now},
		{Target: pkgstoretest.DefaultTarget, Now: now, MeasureBeyond: 1},
		{Target: pkgstoretest.DefaultTarget, Now: now, Sizes: true},
		pkgstore.WithSlowPath(pkgstore.Options{Target: pkgstoretest.DefaultTarget, Now: now, Sizes: true}),
	} {
		before := fds()
		store, err := pkgstore.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := store.Scan(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.MeasureSizes(context.Background(), inv.Releases, 3); err != nil {
			t.Fatal(err)
		}
		store.Close()
		if after := fds(); after != before {
			t.Errorf("%+v: %d descriptors open after, %d before", opts, after, before)
		}
	}
}

// TestFastPathOnDTUnknownFS runs the fast/slow agreement and descriptor
// tests on a file system whose directory entries carry no type
// (DT_UNKNOWN: ext2 without the filetype feature), where every listing
// falls back to an lstat of each name.
func TestFastPathOnDTUnknownFS(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a loop device needs root")
	}
	mkfs := testtool.Need(t, "mkfs.ext2", "e2fsprogs")
	dir := testtool.TempDir(t)
	img, mnt := dir+"/img", dir+"/mnt"
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs, "-q", "-F", "-O", "^filetype", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext2: %v: %s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("mount -o loop: %v: %s", err, out)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	// The file system must really leave the type out.
	f, err := os.Open(mnt)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := unix.Getdents(int(f.Fd()), buf)
	f.Close()
	if err != nil || n < 19 || buf[18] != unix.DT_UNKNOWN {
		t.Skipf("the file system reports entry types (%v)", err)
	}
	if err := os.Mkdir(mnt+"/tmp", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", mnt+"/tmp")
	t.Run("agree", TestFastPathAgreesWithSlowPath)
	t.Run("leaks", TestScanLeaksNoDescriptor)
}
