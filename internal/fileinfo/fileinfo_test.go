//go:build unix

package fileinfo_test

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
)

// TestIDTellsReplacement: the same file has the same ID through another
// name; a file renamed over it does not.
func TestIDTellsReplacement(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(a, filepath.Join(dir, "a2")); err != nil {
		t.Fatal(err)
	}
	id := func(p string) [2]uint64 {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		dev, ino := fileinfo.ID(fi)
		return [2]uint64{dev, ino}
	}
	before := id(a)
	if before == ([2]uint64{}) {
		t.Fatal("no device and inode on a unix platform")
	}
	if got := id(filepath.Join(dir, "a2")); got != before {
		t.Errorf("a hard link has ID %v, the file %v", got, before)
	}
	if err := os.Rename(b, a); err != nil {
		t.Fatal(err)
	}
	if got := id(a); got == before {
		t.Errorf("a file renamed over a keeps its ID %v", got)
	}
}

// TestDiskUsageOfSparseFile: a file with a 64 MiB hole occupies far less
// than its size; one written whole occupies at least its size.
func TestDiskUsageOfSparseFile(t *testing.T) {
	dir := t.TempDir()
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	full := filepath.Join(dir, "full")
	data := make([]byte, 64<<10)
	rand.Read(data) // not zeros, which a compressing file system may store in less
	if err := os.WriteFile(full, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if u := fileinfo.DiskUsage(fi); u >= fi.Size()/2 {
		t.Errorf("sparse file of %d bytes occupies %d", fi.Size(), u)
	}
	fi, err = os.Lstat(full)
	if err != nil {
		t.Fatal(err)
	}
	if u := fileinfo.DiskUsage(fi); u < fi.Size() {
		t.Errorf("file of %d bytes written whole occupies %d", fi.Size(), u)
	}
}
