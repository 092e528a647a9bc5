//go:build unix

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

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// holdHistoryLock has another process (util-linux flock(1)) hold an
// exclusive flock on the store's history.jsonl until the test ends.
func holdHistoryLock(t *testing.T, fsRoot string) {
	t.Helper()
	flock := testtool.Need(t, "flock", "util-linux")
	j, err := history.ForFSRoot(fsRoot)
	if err != nil {
		t.Fatal(err)
	}
	dir := j.Dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "history.jsonl")
	if err := os.WriteFile(file, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(flock, "-o", file, "sleep", "600")
	// Its own process group: the cleanup ends flock(1) and the sleep it
	// runs, which would otherwise outlive the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("flock(1) did not take the history's lock")
		}
	}
}

// startRun runs this test binary as hab-gc run on a store where one
// release is to be removed; it returns the process, a channel for its
// end and its stderr.
func startRun(t *testing.T, b *storetest.Builder, more ...string) (*exec.Cmd, chan error, *bytes.Buffer) {
	t.Helper()
	exe := testtool.Executable(t)
	var stderr bytes.Buffer
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"hab-gc", "run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--runtime-roots=false"}, more...), Stderr: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() }) // Wait is the goroutine's
	return cmd, done, &stderr
}

// A history.jsonl that another process keeps locked does
// not hang a run: it removes what it planned, warns that its history
// could not be written, counts it in hab_gc_history_write_failures_total
// and exits 0 once the bounded wait is over.
func TestRunWithHistoryLockedElsewhere(t *testing.T) {
	t.Parallel()
	b := storetest.New(t)
	b.Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000000")
	holdHistoryLock(t, b.Root)
	prom := filepath.Join(testtool.TempDir(t), "hab-gc.prom")
	_, done, stderr := startRun(t, b, "--metrics-file", prom)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run ended with %v; stderr %q", err, stderr.String())
		}
	case <-time.After(history.DefaultLockTimeout + 50*time.Second):
		t.Fatalf("run still running %s after it started: hung on the history's lock; stderr %q", history.DefaultLockTimeout+50*time.Second, stderr.String())
	}
	if !strings.Contains(stderr.String(), "warning: the run's history could not be written") || !strings.Contains(stderr.String(), "locked by another process") {
		t.Errorf("stderr %q: want a warning that the history is locked", stderr.String())
	}
	if _, err := os.Stat(b.PkgPath("core/a/1/20200101000000")); err == nil {
		t.Error("the run removed nothing")
	}
	if m, err := os.ReadFile(prom); err != nil || !strings.Contains(string(m), "hab_gc_history_write_failures_total{store=") {
		t.Errorf("metrics file (%v) has no history write failure:\n%s", err, m)
	}
}

// SIGTERM and SIGINT end a run waiting for the history's
// lock at once (well before the bounded wait is over), with the warning.
func TestSignalWhileHistoryLocked(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			b := storetest.New(t)
			b.Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000000")
			holdHistoryLock(t, b.Root)
			cmd, done, stderr := startRun(t, b)
			// The removal is done (hidden, deleted, its VERSION directory
			// gone too) before the history is written.
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(filepath.Dir(b.PkgPath("core/a/1/20200101000000"))); err != nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the run removed nothing in 60s; stderr %q", stderr.String())
				}
			}
			time.Sleep(200 * time.Millisecond) // at the history's lock
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if errors.As(err, &ee) && !ee.Exited() {
					t.Fatalf("killed by the signal (%v), not a clean end; stderr %q", err, stderr.String())
				}
				if took := time.Since(sent); took > history.DefaultLockTimeout/2 {
					t.Errorf("ended %s after %v: the signal was not honoured", took, sig)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("still running 60s after %v; stderr %q", sig, stderr.String())
			}
			if !strings.Contains(stderr.String(), "warning: the run's history could not be written") || !strings.Contains(stderr.String(), "locked by another process") {
				t.Errorf("stderr %q: want a warning that the history could not be written", stderr.String())
			}
		})
	}
}
