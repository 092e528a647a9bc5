package testtool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TempDir is t.TempDir, except on Windows, where it is removed at the end
// one entry at a time (os.Remove, read-only files made writable first):
// t.TempDir's clean-up (os.RemoveAll) deletes with POSIX semantics, which
// Wine 8.0 does not implement ("Invalid function"), so a test that passed
// would fail there. On a real Windows machine both work.
func TempDir(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "hab-gc-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := RemovePlain(dir); err != nil {
			t.Errorf("removing the test's directory: %v", err)
		}
	})
	return dir
}

// RemoveAll is os.RemoveAll, except on Windows, where it is RemovePlain:
// os.RemoveAll deletes there with POSIX semantics, which Wine 8.0 does not
// implement ("Invalid function"). A test that removes a tree itself (an
// install's temporary directory, a release "removed by someone else")
// calls it so that it does the same under Wine.
//
// On Windows a file deleted while another process (hab-gc scanning) holds
// it open keeps its name until that handle closes, so its directory is
// not empty yet: RemoveAll tries again for up to a second.
func RemoveAll(dir string) error {
	if runtime.GOOS != "windows" {
		return os.RemoveAll(dir)
	}
	var err error
	for range 50 {
		if err = RemovePlain(dir); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// RemovePlain removes the tree at dir, deepest entries first, with
// os.Remove (never following a symlink: a link is removed itself).
func RemovePlain(dir string) error {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(paths) - 1; i >= 0; i-- {
		p := paths[i]
		err := os.Remove(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			os.Chmod(p, 0o666) // a read-only file
			err = os.Remove(p)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
