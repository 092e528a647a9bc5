//go:build unix

package storetest

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Deep makes depth nested directories named "d" under dir, with a one-byte
// file "f" at every level. It works relative to each level's descriptor,
// so the depth is not limited by PATH_MAX. Its descriptors are
// close-on-exec, never held by a process another test starts meanwhile.
func Deep(t testing.TB, dir string, depth int) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < depth; i++ {
		ffd, err := unix.Openat(fd, "f", unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
		if err == nil {
			_, err = unix.Write(ffd, []byte("x"))
			unix.Close(ffd)
		}
		if err == nil {
			err = unix.Mkdirat(fd, "d", 0o755)
		}
		var next int
		if err == nil {
			next, err = unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		}
		unix.Close(fd)
		if err != nil {
			t.Fatalf("level %d: %v", i, err)
		}
		fd = next
	}
	unix.Close(fd)
}
