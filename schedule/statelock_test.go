//go:build unix

package schedule_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// The state lock PATH.lock follows the store lock's rules: anything at
// that name but a regular file with one link, owned by the effective user,
// is refused and never opened for writing; a lock file left more
// permissive is tightened to 0600; a fresh one is created 0600.
func TestStateLockFileRules(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, lock, outside string)
		want  string // in the error; "" when the reload succeeds
	}{
		{"absent", func(t *testing.T, lock, outside string) {}, ""},
		{"permissive", func(t *testing.T, lock, outside string) {
			must(t, os.WriteFile(lock, nil, 0o644))
			must(t, os.Chmod(lock, 0o666))
		}, ""},
		{"symlink", func(t *testing.T, lock, outside string) { must(t, os.Symlink(outside, lock)) }, "symlink"},
		{"hard link", func(t *testing.T, lock, outside string) { must(t, os.Link(outside, lock)) }, "links"},
		{"FIFO", func(t *testing.T, lock, outside string) { must(t, unix.Mkfifo(lock, 0o600)) }, "named pipe"},
		{"device", func(t *testing.T, lock, outside string) {
			if err := unix.Mknod(lock, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))); err != nil {
				t.Skipf("mknod (needs root): %v", err)
			}
		}, "character device"},
		{"other owner", func(t *testing.T, lock, outside string) {
			must(t, os.WriteFile(lock, nil, 0o600))
			if err := os.Chown(lock, 4242, 4242); err != nil {
				t.Skipf("chown (needs root): %v", err)
			}
		}, "owned by uid 4242"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.write("a", prune(e.store(), "@hourly-random"))
			outside := filepath.Join(testtool.TempDir(t), "precious")
			must(t, os.WriteFile(outside, []byte("precious"), 0o644))
			lock := e.state + ".lock"
			c.plant(t, lock, outside)
			s := e.scheduler()
			done := make(chan error, 1)
			go func() { _, err := s.Reload(); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Reload still running after 10s: hung on the lock's name")
			}
			if b, _ := os.ReadFile(outside); string(b) != "precious" {
				t.Errorf("the file outside was changed: %q", b)
			}
			if c.want == "" {
				if err != nil {
					t.Fatalf("Reload: %v", err)
				}
				fi, err := os.Lstat(lock)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("lock file mode %v, want 0600", fi.Mode().Perm())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Reload: %v; want a refusal naming %s (%s)", err, lock, c.want)
			}
			if fi, _ := os.Lstat(lock); fi != nil && fi.Mode().IsRegular() {
				if st := fi.Sys().(*syscall.Stat_t); st.Uid == 4242 && fi.Mode().Perm() != 0o600 {
					t.Error("another user's lock file was changed")
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A state file named relative to the working directory is locked beside
// it.
func TestStateLockRelativePath(t *testing.T) {
	e := newEnv(t)
	e.write("a", prune(e.store(), "@hourly-random"))
	t.Chdir(testtool.TempDir(t))
	e.state = "state.json"
	e.loaded()
	if _, err := os.Stat("state.json.lock"); err != nil {
		t.Fatal(err)
	}
}
