package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestInterruptPutsBackWithinTheGrace: SIGINT to a run that is deleting
// many releases on a disk whose syncs are slow (strace makes each fsync
// take 20 ms) ends the run on its own, within the grace: it puts back
// every release not yet deleted, saying so on its progress line
// ("putting back"), prints its report, records the run in the history as
// interrupted and exits 7; the watchdog never has to end it ("blocked in
// a system call?"), which would leave the releases not started doomed.
// Put back one release at a time, each rename synced before the next,
// 1,500 syncs would take 30 s here, over the grace.
func TestInterruptPutsBackWithinTheGrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds 3,000 releases and runs them under strace: not with -short")
	}
	strace := testtool.Need(t, "strace", "strace")
	habgc, err := exec.LookPath("hab-gc") // testscript.Main's link to this binary
	noErr(t, err)
	const pkgs = 1500
	b := storetest.New(t)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range pkgs {
		b.Add(storetest.Release{Ident: fmt.Sprintf("core/p%d/1.0/20200101000000", i), ModTime: old},
			storetest.Release{Ident: fmt.Sprintf("core/p%d/2.0/20210101000000", i), ModTime: old})
	}
	ptm, pts := openPTY(t)
	var stdout testtool.SyncBuffer
	cmd := exec.Command(strace, "--seccomp-bpf", "-f", "-qq", "-o", "/dev/null",
		"-e", "trace=fsync,fdatasync,syncfs", "-e", "inject=fsync,fdatasync,syncfs:delay_enter=20000us",
		habgc, "run", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none", "--runtime-roots=false")
	cmd.Env = append(os.Environ(), "HAB_GC_STOP_GRACE=1s")
	cmd.Stdout, cmd.Stderr = &stdout, pts
	noErr(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		if p := tracee(cmd.Process.Pid); p > 0 {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})

	// The terminal, read as it is drawn; deleting is signalled once its
	// line shows.
	var mu sync.Mutex
	var screen strings.Builder
	deleting := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		signalled := false
		for {
			ptm.SetReadDeadline(time.Now().Add(time.Second))
			n, err := ptm.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			seen := strings.Contains(screen.String(), "deleting")
			mu.Unlock()
			if seen && !signalled {
				signalled = true
				close(deleting)
			}
			if err != nil && !os.IsTimeout(err) {
				return
			}
		}
	}()
	select {
	case <-deleting:
	case err := <-done:
		t.Fatalf("ended before deleting: %v; stdout %s", err, stdout.String())
	case <-time.After(5 * time.Minute):
		t.Fatal("no deleting line within 5 minutes")
	}
	pid := tracee(cmd.Process.Pid)
	if pid <= 0 {
		t.Fatal("cannot find hab-gc under strace")
	}
	noErr(t, syscall.Kill(pid, syscall.SIGINT))
	signalled := time.Now()
	var code int
	select {
	case err := <-done:
		code = exitCodeOf(t, err)
	case <-time.After(2 * time.Minute):
		t.Fatal("still running 2 minutes after SIGINT")
	}
	took := time.Since(signalled)
	mu.Lock()
	term := screen.String()
	mu.Unlock()
	if strings.Contains(term, "blocked in a system call") {
		t.Errorf("the watchdog ended the run %s after SIGINT, before it had put back what it hid", took.Round(time.Second))
	}
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if !strings.Contains(term, "putting back") {
		t.Errorf("the progress line never says it is putting back")
	}
	if !regexp.MustCompile(`\d+ releases: \d+ kept, \d+ removed`).MatchString(stdout.String()) {
		t.Errorf("no report on stdout")
	}
	if m, _ := filepath.Glob(filepath.Join(b.Root, "hab/pkgs/*/*/*", pkgstore.DebrisPrefix+"*")); len(m) > 0 {
		t.Errorf("%d releases left hidden, e.g. %s", len(m), m[0])
	}
	j, err := history.ForFSRoot(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := j.Read()
	if err != nil || len(recs) == 0 || recs[len(recs)-1].Kind != history.KindRun || recs[len(recs)-1].Outcome != history.RunInterrupted {
		t.Errorf("the history does not end with the interrupted run (%d records, %v)", len(recs), err)
	}
	if t.Failed() {
		back, _ := filepath.Glob(filepath.Join(b.Root, "hab/pkgs/core/*/1.0/20200101000000"))
		t.Logf("%d of the %d releases to remove were put back", len(back), pkgs)
		t.Logf("terminal (last 600 bytes): %q", term[max(0, len(term)-600):])
		out := stdout.String()
		t.Logf("stdout (last 400 bytes): %q", out[max(0, len(out)-400):])
	}
}

// tracee is the PID of the process strace (pid) started, 0 until it has.
func tracee(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	p, _ := strconv.Atoi(f[0])
	return p
}
