package testtool

import (
	"os"
	"path/filepath"
	"testing"
)

// NeedSymlinks skips t where symlinks cannot be made and read back: under
// Wine 8.0 os.Symlink succeeds but what it makes is not there to Lstat,
// and on a Windows machine making one needs Developer Mode or an
// administrator. Elsewhere it does nothing.
func NeedSymlinks(t testing.TB) {
	t.Helper()
	dir := TempDir(t)
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Skipf("symlinks cannot be made here (%v): on Windows this test needs Developer Mode or an administrator", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skipf("a symlink made here does not read back (%v; Wine does not emulate them): this test needs a Windows machine with Developer Mode or an administrator", err)
	}
}
