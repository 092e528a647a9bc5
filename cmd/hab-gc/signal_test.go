package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// SIGINT and SIGTERM stop a hab-gc process that is waiting (here for the
// store's lock, with a 10-minute timeout) at once, saying it was
// interrupted, with exit code 7 and nothing removed. The process is this
// test binary run as hab-gc (see TestMain).
func TestSignalStopsARun(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, command := range []string{"run", "check"} {
			t.Run(sig.String()+"/"+command, func(t *testing.T) { testSignalStops(t, exe, sig, command) })
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
	time.Sleep(2 * time.Second)
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
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	b := storetest.New(t)
	b.Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000000")
	dir := schedDir(t, map[string]string{"p": pruneDef(b.Root, "@hourly-random")})
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"daemon", "--once", "--schedules", dir, "--state", state, "--lock-timeout=10m", "--catch-up-spread=0"}
	if code, _, errs := hab(t, nil, append(args, "--now", "2026-06-01T00:00:00Z")...); code != 0 {
		t.Fatalf("first --once: %d %s", code, errs)
	}
	interruptWhileLocked(t, exe, b.Root, syscall.SIGTERM, append(args, "--now", "2026-06-01T03:00:00Z")...)
}
