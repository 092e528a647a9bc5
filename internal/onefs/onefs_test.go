//go:build linux

package onefs_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func du(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	seen := map[uint64]bool{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil && !seen[st.Ino] {
			seen[st.Ino] = true
			total += st.Blocks * 512
		}
		return nil
	})
	return total
}

func TestWalkMeasures(t *testing.T) {
	out := t.TempDir()
	write(t, out+"/big", string(make([]byte, 1<<20)))
	dir := t.TempDir()
	write(t, dir+"/a/b/file", "hello")
	write(t, dir+"/c", string(make([]byte, 100_000)))
	os.Link(dir+"/c", dir+"/a/c-link") // counted once
	os.Symlink(out, dir+"/a/to-dir")   // never followed
	os.Symlink(out+"/big", dir+"/to-file")
	u, err := onefs.Walk(open(t, dir), true)
	if err != nil {
		t.Fatal(err)
	}
	if want := du(t, dir); u.Bytes != want || len(u.Mounts) != 0 {
		t.Fatalf("measured %d, du says %d; mounts %v", u.Bytes, want, u.Mounts)
	}
}

// TestDeepTreeLinear: work grows linearly with depth: a bounded number of
// open/stat calls per directory, whatever the depth, with descriptors
// bounded (the walk closes and reopens ancestors through "..").
func TestDeepTreeLinear(t *testing.T) {
	for _, depth := range []int{10, 1000, 3000} {
		dir := t.TempDir()
		storetest.Deep(t, dir, depth)
		u, err := onefs.Walk(open(t, dir), true)
		if err != nil {
			t.Fatal(err)
		}
		if u.Bytes < int64(depth)*512 {
			t.Errorf("depth %d: measured %d", depth, u.Bytes)
		}
		// Per level: stat the dir, open it, stat the descriptor, stat the
		// file; reopening a parent through ".." costs two more.
		if u.Ops > 6*depth+4 {
			t.Errorf("depth %d: %d operations: not linear", depth, u.Ops)
		}
		parent := open(t, filepath.Dir(dir))
		ops, err := onefs.RemoveAll(parent, filepath.Base(dir))
		if err != nil {
			t.Fatal(err)
		}
		if ops > 6*depth+4 {
			t.Errorf("depth %d: removal took %d operations: not linear", depth, ops)
		}
		if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("depth %d: not removed: %v", depth, err)
		}
	}
}

func TestRemoveAllNeverFollowsSymlinks(t *testing.T) {
	out := t.TempDir()
	write(t, out+"/keep", "keep me")
	dir := t.TempDir()
	write(t, dir+"/x/y", "y")
	os.Symlink(out, dir+"/x/link")
	os.Symlink(out+"/keep", dir+"/file-link")
	if _, err := onefs.RemoveAll(open(t, filepath.Dir(dir)), filepath.Base(dir)); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out + "/keep"); err != nil || string(b) != "keep me" {
		t.Fatal("followed a symlink")
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Fatal("not removed")
	}
}

func TestMountPoints(t *testing.T) {
	kinds := []struct {
		name  string
		mount func(src, dst string) error
	}{
		{"tmpfs", func(_, dst string) error { return unix.Mount("onefs-test", dst, "tmpfs", 0, "size=1m") }},
		{"bind, same file system", func(src, dst string) error { return unix.Mount(src, dst, "", unix.MS_BIND, "") }},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			src := t.TempDir()
			write(t, dir+"/a/keep/.placeholder", "")
			write(t, dir+"/a/other", "other")
			if err := k.mount(src, dir+"/a/keep"); err != nil {
				t.Skipf("cannot mount here (needs root): %v", err)
			}
			t.Cleanup(func() { unix.Unmount(dir+"/a/keep", unix.MNT_DETACH) })
			write(t, dir+"/a/keep/precious", string(make([]byte, 50_000)))
			u, err := onefs.Walk(open(t, dir), true)
			if err != nil {
				t.Fatal(err)
			}
			if len(u.Mounts) != 1 || u.Mounts[0] != "a/keep" {
				t.Errorf("mounts %v", u.Mounts)
			}
			if u.Bytes >= 50_000 {
				t.Errorf("measured into the mount: %d", u.Bytes)
			}
			// Removal stops at the mount point and never enters it.
			_, err = onefs.RemoveAll(open(t, filepath.Dir(dir)), filepath.Base(dir))
			var me *onefs.MountError
			if !errors.As(err, &me) || !errors.Is(err, onefs.ErrMountPoint) || me.Path != "a/keep" {
				t.Fatalf("got %v", err)
			}
			if _, err := os.Stat(dir + "/a/keep/precious"); err != nil {
				t.Errorf("deleted under the mount: %v", err)
			}
		})
	}
}

// TestMeasureOpenAgreesWithWalk measures a tree (hard links, symlinks,
// subdirectories, and, as root, a directory and a file bind-mounted at
// its top) with MeasureOpen, given the statx of some top-level files
// read through descriptors of their own, and with Walk: both find the
// same bytes and mount points.
func TestMeasureOpenAgreesWithWalk(t *testing.T) {
	out := t.TempDir()
	write(t, out+"/big", string(make([]byte, 1<<20)))
	dir := t.TempDir()
	write(t, dir+"/a/b/file", "hello")
	write(t, dir+"/c", string(make([]byte, 100_000)))
	write(t, dir+"/DEPS", string(make([]byte, 9_000)))
	write(t, dir+"/TARGET", "x86_64-linux")
	os.Link(dir+"/c", dir+"/a/c-link")
	os.Link(dir+"/DEPS", dir+"/a/deps-link") // a known file's other name: counted once
	os.Symlink(out, dir+"/a/to-dir")
	write(t, dir+"/mnt/.placeholder", "")
	write(t, dir+"/bound", "")
	mounted := unix.Mount(out, dir+"/mnt", "", unix.MS_BIND, "") == nil &&
		unix.Mount(out+"/big", dir+"/bound", "", unix.MS_BIND, "") == nil
	t.Cleanup(func() {
		unix.Unmount(dir+"/mnt", unix.MNT_DETACH)
		unix.Unmount(dir+"/bound", unix.MNT_DETACH)
	})
	// Deeper than the descriptors a walk keeps open (64): the caller's
	// descriptor, at the top, must survive the walk's closing ancestors.
	deep := dir + "/deep"
	for range 100 {
		deep += "/d"
	}
	write(t, deep+"/leaf", "leaf")
	want, err := onefs.Walk(open(t, dir), true)
	if err != nil {
		t.Fatal(err)
	}
	var top unix.Statx_t
	if err := unix.Statx(int(open(t, dir).Fd()), "", unix.AT_EMPTY_PATH, onefs.StatxMask, &top); err != nil {
		t.Fatal(err)
	}
	known := map[string]*unix.Statx_t{}
	for _, name := range []string{"DEPS", "TARGET", "bound"} {
		var sx unix.Statx_t
		if err := unix.Statx(int(open(t, dir+"/"+name).Fd()), "", unix.AT_EMPTY_PATH, onefs.StatxMask, &sx); err != nil {
			t.Fatal(err)
		}
		known[name] = &sx
	}
	for _, k := range []map[string]*unix.Statx_t{nil, known} {
		d := open(t, dir) // a descriptor nobody has listed
		got, err := onefs.MeasureOpen(int(d.Fd()), &top, func(name string) *unix.Statx_t { return k[name] }, nil)
		if _, err := d.Stat(); err != nil {
			t.Errorf("MeasureOpen closed the caller's descriptor: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got.Mounts)
		slices.Sort(want.Mounts)
		if got.Bytes != want.Bytes || !slices.Equal(got.Mounts, want.Mounts) {
			t.Errorf("known %v: MeasureOpen %d bytes, mounts %v; Walk %d, %v", k != nil, got.Bytes, got.Mounts, want.Bytes, want.Mounts)
		}
	}
	if mounted && len(want.Mounts) != 2 {
		t.Errorf("Walk found mounts %v, want mnt and bound", want.Mounts)
	}
}
