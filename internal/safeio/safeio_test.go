//go:build unix

package safeio_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small", "hello\n")
	exact := write("exact", strings.Repeat("x", 16))
	big := write("big", strings.Repeat("x", 17))
	link := filepath.Join(dir, "link")
	os.Symlink("small", link)
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		path   string
		follow safeio.Follow
		want   string
		err    error
	}{
		{"small", small, safeio.NoFollow, "hello\n", nil},
		{"at the limit", exact, safeio.NoFollow, strings.Repeat("x", 16), nil},
		{"over the limit", big, safeio.NoFollow, "", safeio.ErrTooLarge},
		{"symlink followed", link, safeio.FollowLinks, "hello\n", nil},
		{"symlink refused", link, safeio.NoFollow, "", syscall.ELOOP},
		{"FIFO", fifo, safeio.FollowLinks, "", safeio.ErrNotRegular},
		{"directory", dir, safeio.FollowLinks, "", safeio.ErrNotRegular},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := safeio.ReadFile(c.path, 16, c.follow)
			if c.err != nil {
				if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.path) {
					t.Fatalf("got %q, %v; want an error naming %s wrapping %v", got, err, c.path, c.err)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// Through an os.Root, NoFollow refuses a symlink at the last component
// even where it stays inside the root (os.Root itself would follow it).
func TestReadFileAtNoFollow(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "real"), []byte("data"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("../real", filepath.Join(dir, "sub", "link"))
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := safeio.ReadFileAt(r, "sub/link", safeio.Limit, safeio.NoFollow); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("NoFollow through a root: %v, want ELOOP", err)
	}
	if b, err := safeio.ReadFileAt(r, "sub/link", safeio.Limit, safeio.FollowLinks); err != nil || string(b) != "data" {
		t.Fatalf("FollowLinks through a root: %q, %v", b, err)
	}
	if _, err := safeio.ReadFileAt(r, "../outside", safeio.Limit, safeio.NoFollow); err == nil {
		t.Fatal("escaped the root")
	}
	f, err := safeio.OpenAt(r, "sub/new", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, err := os.Lstat(filepath.Join(dir, "sub", "new")); err != nil || fi.Mode() != 0o600 {
		t.Fatalf("OpenAt created %v, %v", fi, err)
	}
}

// A sparse file claiming far more than the limit is refused from its size,
// without reading.
func TestReadFileSparse(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sparse")
	os.WriteFile(p, nil, 0o644)
	if err := os.Truncate(p, 100<<30); err != nil {
		t.Skip(err)
	}
	_, err := safeio.ReadFile(p, safeio.Limit, safeio.NoFollow)
	var tl *safeio.TooLargeError
	if !errors.As(err, &tl) || tl.Size != 100<<30 || tl.Limit != safeio.Limit {
		t.Fatalf("got %v", err)
	}
}

func TestDirRefusesFIFO(t *testing.T) {
	done := make(chan struct{})
	go func() { defer close(done); dirRefusesFIFO(t) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still running after 10s: hung on a FIFO")
	}
}

func dirRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Error(err)
		return
	}
	if _, err := os.OpenRoot(safeio.Dir(fifo)); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("got %v, want ENOTDIR", err)
		return
	}
	r, err := os.OpenRoot(safeio.Dir(dir))
	if err != nil {
		t.Error(err)
		return
	}
	defer r.Close()
	if _, err := r.OpenRoot(safeio.Dir("fifo")); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("through a root: %v, want ENOTDIR", err)
	}
}
