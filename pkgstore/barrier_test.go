package pkgstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
)

// TestMarkLocked: MarkLocked needs the lock this Store holds, and changes
// neither the lock file's mode nor its content (the holder's pid).
func TestMarkLocked(t *testing.T) {
	root := t.TempDir()
	if _, err := pkgstoretest.New(root); err != nil {
		t.Fatal(err)
	}
	s, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.MarkLocked(); !errors.Is(err, pkgstore.ErrNotLocked) {
		t.Fatalf("MarkLocked without the lock: %v, want ErrNotLocked", err)
	}
	unlock, err := s.Lock(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(root, pkgstore.StoreDir, pkgstore.LockFile)
	before, _ := os.ReadFile(lock)
	if err := s.MarkLocked(); err != nil {
		t.Fatalf("MarkLocked holding the lock: %v", err)
	}
	fi, err := os.Lstat(lock)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(lock); string(after) != string(before) || fi.Mode().Perm() != 0o600 {
		t.Errorf("the lock file is now %q, mode %v; was %q, 0600", after, fi.Mode().Perm(), before)
	}
	unlock()
	if err := s.MarkLocked(); !errors.Is(err, pkgstore.ErrNotLocked) {
		t.Fatalf("MarkLocked after unlock: %v, want ErrNotLocked", err)
	}
}
