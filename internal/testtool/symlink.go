package testtool

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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

// Symlink makes link pointing at target and reports whether it reads back
// as a symlink. Where none can be made that does (Wine 8.0; a Windows
// machine without Developer Mode or an administrator) it logs why and
// returns false, so that the test leaves that case out and runs the rest;
// elsewhere a failure fails t.
func Symlink(t testing.TB, target, link string) bool {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil {
		fi, lerr := os.Lstat(link)
		if lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return true
		}
		err = fmt.Errorf("it does not read back as one (%v; Wine does not emulate them)", lerr)
		if lerr == nil {
			err = fmt.Errorf("it reads back as %v (Wine does not emulate them)", fi.Mode())
		}
	}
	if runtime.GOOS != "windows" {
		t.Fatalf("symlink %s: %v", link, err)
	}
	t.Logf("no symlink at %s: %v: its case is left out (a Windows machine with Developer Mode or an administrator runs it)", link, err)
	return false
}
