//go:build linux

package runroots

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestInstallsHereWhenUnsure: an install whose environment could not be
// read, or whose store cannot be compared, holds removals (when in doubt,
// keep); only another directory, or none, at its FS root's store does not.
func TestInstallsHereWhenUnsure(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "hab", "pkgs"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.MkdirAll(filepath.Join(other, "hab", "pkgs"), 0o755); err != nil {
		t.Fatal(err)
	}
	self := "/proc/" + strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		name  string
		store string // the FS root scanned
		fs    habFSRoot
		want  bool
	}{
		{"environ unreadable", root, envFSRoot(nil, os.ErrPermission), true},
		{"this store", root, envFSRoot([]byte("A=1\x00FS_ROOT="+root+"\x00"), nil), true},
		{"the first FS_ROOT counts", root, envFSRoot([]byte("FS_ROOT="+other+"\x00FS_ROOT="+root+"\x00"), nil), false},
		{"another store", root, envFSRoot([]byte("FS_ROOT="+other+"\x00"), nil), false},
		{"this store gone: cannot compare", filepath.Join(root, "gone"), envFSRoot([]byte("FS_ROOT="+other+"\x00"), nil), true},
		{"a file where its store would be", root, envFSRoot([]byte("FS_ROOT="+filepath.Join(root, "hab", "pkgs", "x")+"\x00"), nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a file where its store would be" {
				if err := os.WriteFile(filepath.Join(root, "hab", "pkgs", "x"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m, err := newMatcher(tc.store)
			if err != nil {
				t.Fatal(err)
			}
			r := &reader{m: m, store: statStore(m.storeDir)}
			if got := r.installsHere(self, tc.fs); got != tc.want {
				t.Fatalf("installsHere = %v, want %v", got, tc.want)
			}
		})
	}
}
