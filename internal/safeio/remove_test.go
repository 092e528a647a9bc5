package safeio_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestRemoveAt: a file, a read-only file, an empty directory and a file
// in a subdirectory are removed; a directory with a file in it, and a
// name that is not there, are errors that leave everything as it was; a
// symlink (where one can be made) is removed itself, not its target.
// Under Wine 8.0 the removals take the plain-deletion fallback.
func TestRemoveAt(t *testing.T) {
	dir := testtool.TempDir(t)
	for _, name := range []string{"f", "ro", "sub/g", "full/h", "target"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "ro"), 0o444); err != nil {
		t.Fatal(err)
	}
	gone := []string{"f", "ro", "empty", "sub/g"}
	if testtool.Symlink(t, filepath.Join(dir, "target"), filepath.Join(dir, "link")) {
		gone = append(gone, "link")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range gone {
		if err := safeio.RemoveAt(root, name); err != nil {
			t.Errorf("RemoveAt(%s): %v", name, err)
		}
		if _, err := root.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after RemoveAt: %v, want it gone", name, err)
		}
	}
	if err := safeio.RemoveAt(root, "full"); err == nil {
		t.Error("RemoveAt removed a directory with a file in it")
	}
	if err := safeio.RemoveAt(root, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RemoveAt(missing): %v, want fs.ErrNotExist", err)
	}
	for _, name := range []string{"full/h", "target", "sub"} {
		if _, err := root.Lstat(name); err != nil {
			t.Errorf("%s: %v, want it left", name, err)
		}
	}
}
