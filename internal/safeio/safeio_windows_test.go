//go:build windows

package safeio_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestOpenAtWindows: OpenAt's flags mean on Windows what they mean on
// Unix (create, exclusive, truncate, read, write), through a handle opened
// relative to its directory's.
func TestOpenAtWindows(t *testing.T) {
	dir := testtool.TempDir(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f, err := safeio.OpenAt(root, "f", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("hello")
	f.Close()
	if _, err := safeio.OpenAt(root, "f", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("O_EXCL on an existing file: %v, want ErrExist", err)
	}
	if _, err := safeio.OpenAt(root, "missing", os.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
	b, err := safeio.ReadFileAt(root, "f", safeio.Limit, safeio.NoFollow)
	if err != nil || string(b) != "hello" {
		t.Fatalf("ReadFileAt: %q, %v", b, err)
	}
	if b, err := safeio.ReadFile(filepath.Join(dir, "f"), safeio.Limit, safeio.NoFollow); err != nil || string(b) != "hello" {
		t.Fatalf("ReadFile: %q, %v", b, err)
	}
	f, err = safeio.OpenAt(root, "f", os.O_RDWR|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(f)
	f.Close()
	if len(rest) != 0 {
		t.Errorf("O_TRUNC left %q", rest)
	}
}

// TestOpenPrivateRefusesHardLinkWindows: a lock or state file with a
// second link (a hard link to a file elsewhere, which writing would
// change) is refused, checked on the handle.
func TestOpenPrivateRefusesHardLinkWindows(t *testing.T) {
	dir := testtool.TempDir(t)
	if err := os.WriteFile(filepath.Join(dir, "elsewhere"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "lock")); err != nil {
		t.Skipf("no hard link here (%v): on NTFS the lock file with two links is refused", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = safeio.OpenPrivate(root, "lock", os.O_RDWR|os.O_CREATE, safeio.IsEUID, true)
	var ue *safeio.UnsafeError
	if !errors.As(err, &ue) || !strings.Contains(ue.Why, "2 links") {
		t.Fatalf("OpenPrivate of a file with two links: %v, want refused, naming its links", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "elsewhere")); string(b) != "precious" {
		t.Fatalf("the linked file changed: %q", b)
	}
}
