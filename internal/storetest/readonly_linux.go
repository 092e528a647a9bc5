package storetest

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// ReadOnly bind-mounts dir read-only on a new temporary directory and
// returns it; the mount goes when the test ends. It skips the test where
// that is not possible (not root, no mount namespace rights).
func ReadOnly(t testing.TB, dir string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind-mount read-only")
	}
	ro := t.TempDir()
	if err := unix.Mount(dir, ro, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(ro, unix.MNT_DETACH) })
	if err := unix.Mount("", ro, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Skipf("read-only remount: %v", err)
	}
	return ro
}
