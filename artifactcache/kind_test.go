//go:build unix

package artifactcache

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rawMode is how Go prints a file mode ("L---------", "d---------",
// "p---------"): never shown to people.
var rawMode = regexp.MustCompile(`[a-zA-Z?]+-{9}`)

// What is not a regular file is named in words: the reasons of files left
// alone, and Open's refusal of a symlinked or non-directory level.
func TestKindsInWords(t *testing.T) {
	root := cacheDir(t)
	dir := filepath.Join(root, Dir)
	if err := os.Mkdir(filepath.Join(dir, "dir.hart"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo.hart"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "sock.hart"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	want := map[string]string{
		"link-x86_64-linux.hart": "a symlink, not a regular file",
		"dir.hart":               "a directory, not a regular file",
		"fifo.hart":              "a named pipe (FIFO), not a regular file",
		"sock.hart":              "a socket, not a regular file",
	}
	c := openCache(t, root)
	files, err := c.Plan(context.Background(), status(nil), Options{KeepLatest: 1, Now: time.Now().Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, r := range f.Reasons {
			if rawMode.MatchString(r.Text) {
				t.Errorf("%s: reason %q shows a raw mode", f.File, r.Text)
			}
			if w, ok := want[f.File]; ok && !regexp.MustCompile(regexp.QuoteMeta(w)).MatchString(r.Text) {
				t.Errorf("%s: reason %q, want it to say %q", f.File, r.Text, w)
			}
		}
	}

	// Open: a symlinked artifacts directory, a FIFO where hab/cache is.
	other := t.TempDir()
	for _, tc := range []struct {
		name string
		make func(root string)
		says string
	}{
		{"symlink", func(root string) {
			os.MkdirAll(filepath.Join(root, "hab", "cache"), 0o755)
			os.Symlink(other, filepath.Join(root, Dir))
		}, "is a symlink, not a directory"},
		{"FIFO", func(root string) {
			os.MkdirAll(filepath.Join(root, "hab"), 0o755)
			unix.Mkfifo(filepath.Join(root, "hab", "cache"), 0o644)
		}, "is a named pipe (FIFO), not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.make(root)
			_, err := Open(root)
			if !errors.Is(err, ErrNoCache) || rawMode.MatchString(err.Error()) || !regexp.MustCompile(regexp.QuoteMeta(tc.says)).MatchString(err.Error()) {
				t.Fatalf("Open: %v; want ErrNoCache saying %q", err, tc.says)
			}
		})
	}
}

// A refused level is ErrRefused (and ErrNoCache); an absent cache is only
// ErrNoCache.
func TestOpenRefusedOrAbsent(t *testing.T) {
	root := t.TempDir()
	if _, err := Open(root); !errors.Is(err, ErrNoCache) || errors.Is(err, ErrRefused) {
		t.Fatalf("absent: %v", err)
	}
	os.MkdirAll(filepath.Join(root, "hab"), 0o755)
	os.WriteFile(filepath.Join(root, "hab", "cache"), nil, 0o644)
	if _, err := Open(root); !errors.Is(err, ErrNoCache) || !errors.Is(err, ErrRefused) {
		t.Fatalf("a file at hab/cache: %v", err)
	}
}
