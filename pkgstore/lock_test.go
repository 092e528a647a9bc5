//go:build unix

package pkgstore_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// Whatever sits at the lock's name that is not a regular file with one
// link owned by us is refused, never written, and never hangs.
func TestLockRefusesWhatIsNotItsOwnFile(t *testing.T) {
	root := os.Getuid() == 0
	cases := []struct {
		name     string
		needRoot bool
		plant    func(t *testing.T, lock, outside string)
		want     string
	}{
		{"hard link to a file outside the store", false, func(t *testing.T, lock, outside string) {
			if err := os.Link(outside, lock); err != nil {
				t.Skipf("cannot make a hard link here: %v", err)
			}
		}, "2 links"},
		{"symlink to a file outside the store", false, func(t *testing.T, lock, outside string) {
			if err := os.Symlink(outside, lock); err != nil {
				t.Fatal(err)
			}
		}, "symlink"},
		{"FIFO", false, func(t *testing.T, lock, _ string) {
			if err := unix.Mkfifo(lock, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "named pipe"},
		{"character device", true, func(t *testing.T, lock, _ string) {
			// /dev/null's numbers: harmless if written, and old code would.
			if err := unix.Mknod(lock, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))); err != nil {
				t.Skipf("mknod: %v", err)
			}
		}, "device"},
		{"directory", false, func(t *testing.T, lock, _ string) {
			if err := os.Mkdir(lock, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "directory"},
		{"file owned by another user", true, func(t *testing.T, lock, _ string) {
			if err := os.WriteFile(lock, []byte("4242\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(lock, 12345, 12345); err != nil {
				t.Skipf("chown: %v", err)
			}
		}, "owned by uid 12345"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.needRoot && !root {
				t.Skip("needs root (mknod, chown)")
			}
			b := storetest.New(t)
			outside := filepath.Join(testtool.TempDir(t), "precious")
			if err := os.WriteFile(outside, []byte("precious data\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			lock := b.Path("hab/pkgs/" + pkgstore.LockFile)
			c.plant(t, lock, outside)
			before, _ := os.Lstat(lock)
			st := openStore(t, b.Root)
			res := tryLock(t, st, 0)
			if res.err == nil {
				res.unlock()
				t.Fatalf("Lock succeeded on a %s", c.name)
			}
			if !errors.Is(res.err, pkgstore.ErrUnsafeLockFile) {
				t.Fatalf("error %v does not wrap ErrUnsafeLockFile", res.err)
			}
			if msg := res.err.Error(); !strings.Contains(msg, lock) || !strings.Contains(msg, c.want) {
				t.Errorf("error %q does not name %s and %q", msg, lock, c.want)
			}
			if got, _ := os.ReadFile(outside); string(got) != "precious data\n" {
				t.Errorf("file outside the store changed: %q", got)
			}
			after, err := os.Lstat(lock)
			if err != nil || after.Mode() != before.Mode() || after.Size() != before.Size() {
				t.Errorf("what was at the lock's name changed: %v -> %v (%v)", before, after, err)
			}
		})
	}
}

func TestLockCreatesFileMode0600(t *testing.T) {
	b := storetest.New(t)
	st := openStore(t, b.Root)
	res := tryLock(t, st, 0)
	if res.err != nil {
		t.Fatal(res.err)
	}
	defer res.unlock()
	fi, err := os.Lstat(b.Path("hab/pkgs/" + pkgstore.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 {
		t.Errorf("lock file mode %v, want -rw-------", fi.Mode())
	}
	body, _ := os.ReadFile(b.Path("hab/pkgs/" + pkgstore.LockFile))
	if string(body) != strconv.Itoa(os.Getpid())+"\n" {
		t.Errorf("lock file holds %q, want this pid", body)
	}
}

// A lock file an older hab-gc left world-readable (so that any user could
// flock it) is tightened to 0600, and a longer stale content is replaced.
func TestLockTightensExistingFile(t *testing.T) {
	b := storetest.New(t)
	lock := b.Path("hab/pkgs/" + pkgstore.LockFile)
	if err := os.WriteFile(lock, []byte("1234567890\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(lock, 0o644)
	st := openStore(t, b.Root)
	res := tryLock(t, st, 0)
	if res.err != nil {
		t.Fatal(res.err)
	}
	defer res.unlock()
	fi, _ := os.Lstat(lock)
	if fi.Mode() != 0o600 {
		t.Errorf("lock file mode %v, want -rw-------", fi.Mode())
	}
	if body, _ := os.ReadFile(lock); string(body) != strconv.Itoa(os.Getpid())+"\n" {
		t.Errorf("lock file holds %q, want this pid", body)
	}
}

// deadPid returns the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// When the lock is held, the error names the process that holds it, never
// a pid the file claims that does not hold it.
func TestLockHolderNeverAStalePid(t *testing.T) {
	cases := []struct {
		name    string
		content func(t *testing.T) string
		claimed func(t *testing.T, content string) int
	}{
		{"pid not running", func(t *testing.T) string { return strconv.Itoa(deadPid(t)) + "\n" }, nil},
		{"pid running but not the holder", func(*testing.T) string { return "1\n" }, nil},
		{"garbage", func(*testing.T) string { return "not a pid\n" }, nil},
		{"empty", func(*testing.T) string { return "" }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			lock := b.Path("hab/pkgs/" + pkgstore.LockFile)
			content := c.content(t)
			if err := os.WriteFile(lock, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			// Another process holds the lock without writing its pid: a
			// child that flocks the file and waits.
			holder := exec.Command("flock", "-x", lock, "sleep", "60")
			if err := holder.Start(); err != nil {
				t.Skipf("flock(1): %v", err)
			}
			t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
			waitHeld(t, lock)
			st := openStore(t, b.Root)
			res := tryLock(t, st, 0)
			if res.err == nil {
				res.unlock()
				t.Fatal("Lock succeeded while another process held it")
			}
			var le *pkgstore.LockedError
			if !errors.As(res.err, &le) {
				t.Fatalf("error %v is not a LockedError", res.err)
			}
			if claimed, err := strconv.Atoi(strings.TrimSpace(content)); err == nil {
				if le.Holder == claimed || strings.Contains(res.err.Error(), "pid "+strconv.Itoa(claimed)+" ") ||
					strings.HasSuffix(res.err.Error(), "pid "+strconv.Itoa(claimed)) {
					t.Errorf("error names the stale pid %d: %v", claimed, res.err)
				}
			}
			// The holder is flock(1)'s child or flock itself: whichever
			// is named must be alive and in that process tree.
			if le.Holder != 0 && le.Holder != holder.Process.Pid {
				if ppid := parentOf(le.Holder); ppid != holder.Process.Pid {
					t.Errorf("holder named as pid %d, which is neither flock (%d) nor its child", le.Holder, holder.Process.Pid)
				}
			}
			if le.Holder == 0 && !strings.Contains(res.err.Error(), "cannot be identified") {
				t.Errorf("unidentified holder not said so: %v", res.err)
			}
		})
	}
}

func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	p, _ := strconv.Atoi(f[1])
	return p
}

// waitHeld waits until someone holds an exclusive flock on path.
func waitHeld(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the helper never took the lock")
}

// A second hab-gc in this process (as holdlock does in scripts) is named
// by its pid, which is this process's.
func TestLockHolderNamedWhenKnown(t *testing.T) {
	b := storetest.New(t)
	st := openStore(t, b.Root)
	first := tryLock(t, st, 0)
	if first.err != nil {
		t.Fatal(first.err)
	}
	defer first.unlock()
	st2 := openStore(t, b.Root)
	res := tryLock(t, st2, 100*time.Millisecond)
	var le *pkgstore.LockedError
	if !errors.As(res.err, &le) || le.Holder != os.Getpid() {
		t.Fatalf("got %v, want a LockedError naming pid %d", res.err, os.Getpid())
	}
}

// rlock is ReadLock with why it went without the lock as its error.
func rlock(st *pkgstore.Store) (func() error, error) {
	unlock, without, err := st.ReadLock(context.Background(), 0)
	if without != nil {
		return nil, without
	}
	return unlock, err
}

// ReadLock is shared among readers, excluded by Lock, and never creates the
// lock file in a store the user does not own.
func TestReadLockShared(t *testing.T) {
	t.Run("shared among readers, excluded by a writer", func(t *testing.T) {
		b := storetest.New(t)
		st := openStore(t, b.Root)
		u1, err := rlock(st)
		if err != nil {
			t.Fatal(err)
		}
		u2, err := rlock(openStore(t, b.Root))
		if err != nil {
			t.Fatalf("second reader: %v", err)
		}
		res := tryLock(t, openStore(t, b.Root), 0)
		if !errors.Is(res.err, pkgstore.ErrLocked) {
			t.Fatalf("writer while readers hold it: %v", res.err)
		}
		u1()
		u2()
		res = tryLock(t, openStore(t, b.Root), 0)
		if res.err != nil {
			t.Fatal(res.err)
		}
		defer res.unlock()
		if _, err := rlock(openStore(t, b.Root)); !errors.Is(err, pkgstore.ErrLocked) {
			t.Fatalf("reader while a writer holds it: %v", err)
		}
	})
	t.Run("no lock file created in another user's store", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to chown the store")
		}
		b := storetest.New(t)
		if err := os.Chown(b.Path("hab/pkgs"), 12345, 12345); err != nil {
			t.Skip(err)
		}
		_, err := rlock(openStore(t, b.Root))
		if !errors.Is(err, pkgstore.ErrLockUnavailable) {
			t.Fatalf("got %v, want ErrLockUnavailable", err)
		}
		if _, err := os.Lstat(b.Path("hab/pkgs/" + pkgstore.LockFile)); err == nil {
			t.Fatal("ReadLock created the lock file")
		}
	})
}
