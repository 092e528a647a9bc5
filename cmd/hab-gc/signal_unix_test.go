//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// A hab-gc whose FS root has a FIFO at hab/pkgs stops at once, exit 2,
// signal or not (blocked in open(2) by target inference,
// SIGTERM and SIGINT left it there).
func TestSignalStopsAStoreFIFO(t *testing.T) {
	t.Parallel()
	for _, command := range [][]string{{"check"}, {"run", "--dry-run", "--keep-latest=1"}, {"list"}, {"graph"}, {"watch", "--keep-latest=1"}} {
		t.Run(command[0], func(t *testing.T) {
			t.Parallel()
			root := testtool.TempDir(t)
			if err := os.Mkdir(filepath.Join(root, "hab"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(root, "hab", "pkgs"), 0o644); err != nil {
				t.Skip(err)
			}
			cmd, stderr, done := startChild(t, "hab-gc", nil, append(command, "--fs-root", root)...)
			time.Sleep(time.Second)
			cmd.Process.Signal(syscall.SIGTERM) // fails once it has exited
			if code := waitExit(t, done, 10*time.Second, stderr); code != exitUsage && code != exitInterrupted {
				t.Fatalf("exit %d, want %d (or %d when the signal came first); stderr %q", code, exitUsage, exitInterrupted, stderr.String())
			}
		})
	}
}

// A command blocked in a system call no context reaches (here open(2) of
// a FIFO with no writer, in the test binary run as hab-gc-blocked: see
// TestMain) is ended by the watchdog: after the first signal, it says it
// is stopping; the grace (HAB_GC_STOP_GRACE) passed, it says it ends and
// exits 7. A second signal ends it at once.
func TestSignalEndsABlockedCommand(t *testing.T) {
	t.Parallel()
	b := storetest.New(t)
	b.Pkg("core/a/1/20200101000000")
	fifo := filepath.Join(testtool.TempDir(t), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	cases := []struct {
		name   string
		grace  string
		second syscall.Signal // 0: none
		within time.Duration  // after the first signal
		says   string
	}{
		{"grace", "1s", 0, 8 * time.Second, "still not stopped 1s after SIGTERM"},
		{"second signal", "10m", syscall.SIGINT, 5 * time.Second, "SIGINT again: ending at once"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd, stderr, done := startChild(t, "hab-gc-blocked", []string{"HAB_GC_TEST_BLOCK_ON=" + fifo, stopGraceEnv + "=" + c.grace},
				"check", "--fs-root", b.Root)
			time.Sleep(time.Second) // blocked by then
			select {
			case err := <-done:
				t.Fatalf("ended before any signal: %v; stderr %q", err, stderr.String())
			default:
			}
			start := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if c.second != 0 {
				time.Sleep(300 * time.Millisecond)
				if err := cmd.Process.Signal(c.second); err != nil {
					t.Fatal(err)
				}
			}
			code := waitExit(t, done, c.within, stderr)
			msg := stderr.String()
			if code != exitInterrupted || !strings.Contains(msg, "interrupted (SIGTERM): stopping (a second signal ends it at once)") || !strings.Contains(msg, c.says) {
				t.Fatalf("exit %d after %s, stderr %q: want exit %d saying it stops, then %q", code, time.Since(start), msg, exitInterrupted, c.says)
			}
			if c.second == 0 && time.Since(start) < time.Second {
				t.Errorf("ended %s after the signal, before the grace of %s", time.Since(start), c.grace)
			}
		})
	}
}
