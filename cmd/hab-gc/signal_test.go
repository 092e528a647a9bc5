package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// SIGINT and SIGTERM stop a hab-gc process that is waiting (here for the
// store's lock, with a 10-minute timeout) at once, saying it was
// interrupted, with exit code 7 and nothing removed. The process is this
// test binary run as hab-gc (see TestMain).
func TestSignalStopsARun(t *testing.T) {
	testtool.NeedSignals(t)
	t.Parallel()
	exe := testtool.Executable(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, command := range []string{"run", "check"} {
			t.Run(sig.String()+"/"+command, func(t *testing.T) { t.Parallel(); testSignalStops(t, exe, sig, command) })
		}
	}
}

func testSignalStops(t *testing.T, exe string, sig syscall.Signal, command string) {
	b := storetest.New(t)
	b.Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000000")
	args := []string{"run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--lock-timeout=10m"}
	if command == "check" {
		args = []string{"check", "--fs-root", b.Root, "--lock-timeout=10m"}
	}
	if msg := interruptWhileLocked(t, exe, b.Root, sig, args...); strings.Contains(msg, "context canceled") {
		t.Errorf("stderr %q: want it to say it was interrupted, not %q", msg, "context canceled")
	}
	if _, err := os.Stat(b.PkgPath("core/a/1/20200101000000")); err != nil {
		t.Errorf("a release was removed: %v", err)
	}
}

// interruptWhileLocked holds the store's lock at fsRoot, runs this test
// binary as hab-gc with args, sends sig once it waits for the lock, and
// checks that it exits 7 saying it was interrupted (not death by the
// signal). It returns the process's stderr.
func interruptWhileLocked(t *testing.T, exe, fsRoot string, sig syscall.Signal, args ...string) string {
	t.Helper()
	defer storetest.HoldLock(t, fsRoot)()
	var stderr bytes.Buffer
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"hab-gc"}, args...), Stderr: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Let it reach the wait for the lock (its handlers are set by then).
	waitOpens(t, cmd.Process.Pid, filepath.Join(fsRoot, "hab", "pkgs", ".hab-gc.lock"))
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
			t.Fatalf("ended with %v, want exit %d saying it was interrupted; stderr %q", err, exitInterrupted, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("still running 30s after %v", sig)
	}
	return stderr.String()
}

// TestSignalStopsDaemonOnce: SIGTERM while `daemon --once` waits for a
// store's lock says it was interrupted and exits 7, not 4 (a failed job).
func TestSignalStopsDaemonOnce(t *testing.T) {
	testtool.NeedSignals(t)
	t.Parallel()
	exe := testtool.Executable(t)
	b := storetest.New(t)
	b.Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000000")
	dir := schedtest.Dir(t, map[string]string{"p": schedtest.Prune(b.Root, "@hourly-random")})
	state := filepath.Join(testtool.TempDir(t), "state.json")
	args := []string{"daemon", "--once", "--schedules", dir, "--state", state, "--lock-timeout=10m", "--catch-up-spread=0"}
	if code, _, errs := hab(t, nil, append(args, "--now", "2026-06-01T00:00:00Z")...); code != 0 {
		t.Fatalf("first --once: %d %s", code, errs)
	}
	interruptWhileLocked(t, exe, b.Root, syscall.SIGTERM, append(args, "--now", "2026-06-01T03:00:00Z")...)
}

// startChild runs this test binary as argv0 (see TestMain) with args and
// env added to the test's, and returns it with its stderr and its end.
func startChild(t *testing.T, argv0 string, env []string, args ...string) (*exec.Cmd, *testtool.SyncBuffer, <-chan error) {
	t.Helper()
	exe := testtool.Executable(t)
	stderr := &testtool.SyncBuffer{}
	cmd := &exec.Cmd{Path: exe, Args: append([]string{argv0}, args...), Stderr: stderr, Env: append(os.Environ(), env...)}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	ended := make(chan struct{})
	go func() { done <- cmd.Wait(); close(ended) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-ended
	})
	return cmd, stderr, done
}

// waitExit waits at most within for the child to end and returns its exit
// code (-1: ended by a signal).
func waitExit(t *testing.T, done <-chan error, within time.Duration, stderr *testtool.SyncBuffer) int {
	t.Helper()
	select {
	case err := <-done:
		return exitCodeOf(t, err)
	case <-time.After(within):
		t.Fatalf("still running %s later; stderr %q", within, stderr.String())
	}
	return 0
}

// blockedMain is hab-gc that blocks in open(2) of the FIFO named by
// HAB_GC_TEST_BLOCK_ON before running the command, once it watches for
// signals: a command blocked in a system call.
func blockedMain() int {
	return executeWith(os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv, os.Exit, func() {
		if f, err := os.Open(os.Getenv("HAB_GC_TEST_BLOCK_ON")); err == nil {
			f.Close()
		}
	})
}

// lease waits for its COMMAND after a signal past the grace (COMMAND has
// WaitDelay to exit, then it is killed: the lease never ends while it
// runs); a second signal kills COMMAND before hab-gc ends.
func TestSignalLeaseOutlivesTheGrace(t *testing.T) {
	testtool.NeedSignals(t)
	b := storetest.New(t)
	b.Pkg("core/a/1/20200101000000")
	for _, second := range []bool{false, true} {
		t.Run(map[bool]string{false: "one signal", true: "two signals"}[second], func(t *testing.T) {
			pidFile := filepath.Join(testtool.TempDir(t), "pid")
			// COMMAND ignores SIGTERM and runs 3s.
			script := "trap '' TERM; echo $$ > " + pidFile + "; exec sleep 3"
			cmd, stderr, done := startChild(t, "hab-gc", []string{stopGraceEnv + "=500ms"},
				"lease", "--fs-root", b.Root, "core/a/1/20200101000000", "--", "sh", "-c", script)
			time.Sleep(time.Second)
			pidText, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatalf("COMMAND did not start: %v; stderr %q", err, stderr.String())
			}
			start := time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			if second {
				time.Sleep(200 * time.Millisecond)
				cmd.Process.Signal(syscall.SIGINT)
			}
			code := waitExit(t, done, 20*time.Second, stderr)
			took := time.Since(start)
			pid := strings.TrimSpace(string(pidText))
			if !second {
				if took < 1500*time.Millisecond || strings.Contains(stderr.String(), "ending now") {
					t.Fatalf("ended %s after SIGTERM (exit %d), before COMMAND (3s); stderr %q", took, code, stderr.String())
				}
				return
			}
			if code != exitInterrupted || took > 2*time.Second {
				t.Fatalf("exit %d %s after the second signal; stderr %q", code, took, stderr.String())
			}
			time.Sleep(200 * time.Millisecond)
			if st, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
				t.Errorf("COMMAND (pid %s) still runs after hab-gc ended: %s", pid, st)
			}
		})
	}
}

// HAB_GC_STOP_GRACE must be a positive duration: anything else is a
// usage error naming it.
func TestStopGraceSetting(t *testing.T) {
	for _, v := range []string{"soon", "0", "-1s"} {
		code, _, stderr := hab(t, map[string]string{stopGraceEnv: v}, "version")
		if code != exitUsage || !strings.Contains(stderr, stopGraceEnv) {
			t.Errorf("%s=%s: exit %d, stderr %q; want %d naming it", stopGraceEnv, v, code, stderr, exitUsage)
		}
	}
	if code, _, stderr := hab(t, map[string]string{stopGraceEnv: "3s"}, "version"); code != 0 {
		t.Errorf("%s=3s: exit %d, %s", stopGraceEnv, code, stderr)
	}
}

// waitOpens waits until process pid has the file at name open (read from
// /proc/PID/fd), at most 30 s; where there is no /proc, it waits 2 s. A
// fixed pause alone failed on a slow machine: the child had not reached
// its wait yet.
func waitOpens(t *testing.T, pid int, name string) {
	t.Helper()
	want, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		time.Sleep(2 * time.Second)
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ents, _ := os.ReadDir(fds)
		for _, e := range ents {
			if fi, err := os.Stat(fds + "/" + e.Name()); err == nil && os.SameFile(fi, want) {
				return
			}
		}
	}
	t.Fatalf("process %d did not open %s within 30s", pid, name)
}
