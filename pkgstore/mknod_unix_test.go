//go:build unix

package pkgstore_test

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// mknod makes a special file (a device or a socket) at path, replacing
// what is there; the test is skipped where that is not allowed.
func mknod(t *testing.T, path string, kind uint32, major, minor uint32) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mknod(path, kind|0o644, int(unix.Mkdev(major, minor))); err != nil {
		t.Skipf("mknod: %v", err)
	}
}
