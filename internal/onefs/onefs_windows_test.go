//go:build windows

package onefs_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/testtool"
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

// release lays out a release as Habitat unpacks one on Windows: bin\*.exe
// and *.dll, metadata files, a read-only file (Windows refuses to delete
// one as it is), nested directories.
func release(t *testing.T, dir string) {
	for _, f := range []string{"IDENT", "TARGET", "bin/redis-server.exe", "bin/redis-cli.exe", "bin/libssl-1_1-x64.dll", "share/doc/deep/a/b/c/README"} {
		write(t, filepath.Join(dir, filepath.FromSlash(f)), "x")
	}
	if err := os.Chmod(filepath.Join(dir, "IDENT"), 0o444); err != nil {
		t.Fatal(err)
	}
}

func TestRemoveAllWindows(t *testing.T) {
	root := testtool.TempDir(t)
	release(t, filepath.Join(root, "rel"))
	write(t, filepath.Join(root, "keep", "f"), "kept")
	ops, err := onefs.RemoveAll(open(t, root), "rel")
	if err != nil {
		t.Fatalf("RemoveAll: %v (%d ops)", err, ops)
	}
	if _, err := os.Lstat(filepath.Join(root, "rel")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("rel still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "keep", "f")); err != nil || string(b) != "kept" {
		t.Fatalf("keep/f: %q, %v", b, err)
	}
}

// TestRemoveAllKeepsWhatIsHeldOpen: a file a process holds open without
// FILE_SHARE_DELETE (as Windows holds a running program's image and a
// loaded DLL) cannot be deleted: RemoveAll fails with
// ERROR_SHARING_VIOLATION and the file stays. (Here the test holds it
// open; on a Windows machine a running redis-server.exe does the same.)
func TestRemoveAllKeepsWhatIsHeldOpen(t *testing.T) {
	root := testtool.TempDir(t)
	dir := filepath.Join(root, "rel")
	release(t, dir)
	held := filepath.Join(dir, "bin", "libssl-1_1-x64.dll")
	p, _ := windows.UTF16PtrFromString(held)
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = onefs.RemoveAll(open(t, root), "rel")
	if !errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
		t.Errorf("RemoveAll with %s held open: %v; want ERROR_SHARING_VIOLATION", held, err)
	}
	if _, err := os.Lstat(held); err != nil {
		t.Errorf("the file held open is gone: %v", err)
	}
	windows.CloseHandle(h)
	if _, err := onefs.RemoveAll(open(t, root), "rel"); err != nil {
		t.Fatalf("RemoveAll once it is closed: %v", err)
	}
}

func TestWalkWindows(t *testing.T) {
	root := testtool.TempDir(t)
	dir := filepath.Join(root, "rel")
	release(t, dir)
	write(t, filepath.Join(dir, "big"), string(make([]byte, 100_000)))
	u, err := onefs.Walk(open(t, dir), true)
	if err != nil {
		t.Fatal(err)
	}
	if u.Bytes < 100_000 || len(u.Mounts) != 0 {
		t.Fatalf("Walk: %+v; want at least 100000 bytes, no mounts", u)
	}
	if _, err := onefs.OpenDir(open(t, root), "rel/bin/redis-cli.exe"); err == nil {
		t.Fatal("OpenDir of a file succeeded")
	}
	d, err := onefs.OpenDir(open(t, root), "rel/share/doc")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil || len(names) != 1 || names[0] != "deep" {
		t.Fatalf("OpenDir(rel/share/doc) lists %q, %v", names, err)
	}
}

// TestRemoveAllNeverFollowsLinks: a symlink (or junction) inside a tree is
// never followed: a symlink is deleted as a link, and a junction stops
// RemoveAll as a mount point, the directory it leads to untouched.
func TestRemoveAllNeverFollowsLinks(t *testing.T) {
	root := testtool.TempDir(t)
	outside := filepath.Join(root, "outside")
	write(t, filepath.Join(outside, "precious"), "x")
	dir := filepath.Join(root, "rel")
	release(t, dir)
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skipf("cannot make a symlink here (%v): a Windows machine with Developer Mode or as an administrator shows that the link goes and its target stays", err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skipf("the symlink made reads back as %v, %v (Wine's emulation): a Windows machine shows that the link goes and its target stays", fi, err)
	}
	if _, err := onefs.RemoveAll(open(t, root), "rel"); err != nil && !errors.Is(err, onefs.ErrMountPoint) {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "precious")); err != nil {
		t.Fatalf("the symlink's target was deleted: %v", err)
	}
}
