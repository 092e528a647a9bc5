package schedule_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// roBind makes dir read-only (a read-only bind mount on itself) until the
// test ends: even root cannot write there, as with a full or read-only
// disk.
func roBind(t *testing.T, dir string) {
	t.Helper()
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	if err := unix.Mount("", dir, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
}
