package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// tmpfs mounts a tmpfs of size (mount's size= option) on a new directory
// and returns it; it skips the test where that cannot be done.
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	dir := filepath.Join(testtool.TempDir(t), "tmpfs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("hab-gc-test", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// TestStoreMovedToAnotherDiskKeepsJobTimeAndKey: hab/pkgs moved to another
// file system (a tmpfs) and symlinked back keeps its job's key, time and
// history, and the due time that ran is not run again.
func TestStoreMovedToAnotherDiskKeepsJobTimeAndKey(t *testing.T) {
	t.Parallel()
	disk := tmpfs(t, "16m")
	mv := testtool.Need(t, "mv", "coreutils") // across file systems: a copy, then the removal
	b := twoReleases(t)
	dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(b.Root, "@weekly-random")})
	state := filepath.Join(testtool.TempDir(t), "state.json")
	for _, now := range []string{"2026-06-01T00:00:00Z", "2026-06-20T00:00:00Z"} { // first sight, then a catch-up run
		if code, errs, _ := daemonOnce(t, "--schedules", dir, "--state", state, "--now", now); code != 0 {
			t.Fatalf("daemon --once at %s: exit %d\n%s", now, code, errs)
		}
	}
	job := onlyJob(t, listedJobs(t, "--schedules", dir, "--state", state, "--now", "2026-06-20T00:00:01Z"))
	if job.Runs != 1 {
		t.Fatalf("before the move: %+v, want one run", job)
	}
	pkgs := filepath.Join(b.Root, "hab", "pkgs")
	moved := filepath.Join(disk, "pkgs")
	if out, err := exec.Command(mv, pkgs, moved).CombinedOutput(); err != nil {
		t.Fatalf("mv: %v\n%s", err, out)
	}
	if err := os.Symlink(moved, pkgs); err != nil {
		t.Fatal(err)
	}
	same := func(when string, jobs map[string]listedJob) {
		t.Helper()
		if j := onlyJob(t, jobs); j.Key != job.Key || j.Cron != job.Cron || j.Runs != job.Runs {
			t.Fatalf("%s the move the job is %+v; it was %+v", when, j, job)
		}
	}
	same("after", listedJobs(t, "--schedules", dir, "--state", state, "--now", "2026-06-20T00:00:01Z"))
	if code, errs, ran := daemonOnce(t, "--schedules", dir, "--state", state, "--now", "2026-06-20T00:01:00Z"); code != 0 || ran != 0 {
		t.Fatalf("daemon --once after the move: exit %d, %d job(s) ran, want 0 and 0\n%s", code, ran, errs)
	}
	same("after the daemon saw", listedJobs(t, "--schedules", dir, "--state", state, "--now", "2026-06-20T00:01:01Z"))
}

// TestUnwritableStateDoesNotRerunDueTime: with the state on a file system
// that became read-only or full, `daemon --once` (run again and again,
// from cron) runs a due time once: the store's history records the run.
func TestUnwritableStateDoesNotRerunDueTime(t *testing.T) {
	t.Parallel()
	for name, spoil := range map[string]func(t *testing.T, dir string){
		"read-only": func(t *testing.T, dir string) {
			if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
				t.Fatalf("remounting read-only: %v", err)
			}
		},
		"full": func(t *testing.T, dir string) {
			f, err := os.Create(filepath.Join(dir, "filler"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for chunk := bytes.Repeat([]byte{1}, 4096); ; {
				if _, err := f.Write(chunk); errors.Is(err, syscall.ENOSPC) {
					return
				} else if err != nil {
					t.Fatal(err)
				}
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stateDir := tmpfs(t, "1m")
			b := twoReleases(t)
			dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(b.Root, "@daily-random")})
			state := filepath.Join(stateDir, "state.json")
			if code, errs, _ := daemonOnce(t, "--schedules", dir, "--state", state, "--now", "2026-06-01T00:00:00Z"); code != 0 {
				t.Fatalf("daemon --once: exit %d\n%s", code, errs)
			}
			spoil(t, stateDir)
			if _, errs, ran := daemonOnce(t, "--schedules", dir, "--state", state, "--now", "2026-06-04T00:00:00Z"); ran != 1 {
				t.Fatalf("daemon --once three days later: %d job(s) ran, want 1\n%s", ran, errs)
			}
			for _, now := range []string{"2026-06-04T00:01:00Z", "2026-06-04T00:02:00Z"} {
				if _, errs, ran := daemonOnce(t, "--schedules", dir, "--state", state, "--now", now); ran != 0 {
					t.Fatalf("daemon --once again at %s: %d job(s) ran, want 0 (the due time ran)\n%s", now, ran, errs)
				}
			}
		})
	}
}

// TestReusedPIDDoesNotHoldDueTime: a daemon running as PID 1 of its PID
// namespace (hab-gc as a container's first process) is killed (SIGKILL)
// while its check waits for the store's lock; the container restarts and
// hab-gc is PID 1 again. The due time the dead daemon took up is not held
// as "already running" by the new one, whose PID is the dead one's: it
// runs.
func TestReusedPIDDoesNotHoldDueTime(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make PID namespaces")
	}
	b := hostStore(t)
	b.Pkg("core/a/1/20200101000000")
	dir := schedtest.Dir(t, map[string]string{"c": "fs_root = " + strconv.Quote(b.Root) + "\n[check]\nschedule = \"0 3 * * *\"\n"})
	state := filepath.Join(testtool.TempDir(t), "state.json")
	if code, errs, _ := daemonOnce(t, "--schedules", dir, "--state", state, "--now", "2026-06-01T00:00:00Z"); code != 0 {
		t.Fatalf("daemon --once: exit %d\n%s", code, errs)
	}
	exe := testtool.Executable(t)
	pid1 := func(now string, extra ...string) *exec.Cmd {
		args := append([]string{"hab-gc", "daemon", "--once", "--catch-up-spread", "0", "--schedules", dir, "--state", state, "--now", now}, extra...)
		return &exec.Cmd{Path: exe, Args: args, Env: []string{"PATH=" + os.Getenv("PATH")}, Stderr: new(bytes.Buffer), SysProcAttr: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}}
	}

	// The first daemon takes up the 03:00 check and waits for the
	// store's lock, held here: it opens the lock file.
	release := storetest.HoldLock(t, b.Root)
	opened := openedFile(t, filepath.Join(b.Root, "hab", "pkgs", pkgstore.LockFile))
	first := pid1("2026-06-02T04:00:00Z", "--lock-timeout", "10m")
	if err := first.Start(); err != nil {
		t.Skipf("cannot start a process in a new PID namespace: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	select {
	case <-opened:
	case err := <-done:
		t.Fatalf("the first daemon ended (%v) before it waited for the store's lock\n%s", err, first.Stderr)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	release()

	second := pid1("2026-06-02T04:01:00Z")
	err := second.Run()
	errs := second.Stderr.(*bytes.Buffer).String()
	if code := exitCodeOf(t, err); code != 0 || strings.Count(errs, `msg="job ran"`) != 1 {
		t.Fatalf("the restarted daemon (PID 1 again): exit %d, want the check run once\n%s", code, errs)
	}
}

// openedFile returns a channel that is closed when path is next opened
// (inotify's IN_OPEN), by any process.
func openedFile(t *testing.T, path string) <-chan struct{} {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	t.Cleanup(func() { f.Close() })
	if _, err := unix.InotifyAddWatch(fd, path, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		if n, err := f.Read(buf); err == nil && n > 0 {
			close(ch)
		}
	}()
	return ch
}
