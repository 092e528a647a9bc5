package benchstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// BuildCLI builds the hab-gc command into dir and returns the binary's
// path. It uses the go command of the toolchain running the test
// (runtime.GOROOT()/bin/go, else the one on PATH) and must run inside the
// module (tests and benchmarks do). A failed build's output is in the
// error.
func BuildCLI(dir string) (string, error) {
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go") //lint:ignore SA1019 the benchmark builds with the toolchain running it, on this machine
	if _, err := os.Stat(goCmd); err != nil {
		if goCmd, err = exec.LookPath("go"); err != nil {
			return "", fmt.Errorf("benchstore: no go command to build hab-gc with: %w", err)
		}
	}
	bin := filepath.Join(dir, "hab-gc")
	out, err := exec.Command(goCmd, "build", "-o", bin, "github.com/hab-gc/hab-gc/cmd/hab-gc").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("benchstore: go build hab-gc: %w\n%s", err, out)
	}
	return bin, nil
}

// DryRunArgs are the arguments of the end-to-end dry run on the store
// under root: plan with --keep-latest=3 and no minimum age, runtime roots
// read from /proc as by default, the plan printed as JSON. The target is
// the generated stores' (storetest.DefaultTarget), as the in-process
// benchmarks scan with.
func DryRunArgs(root string) []string {
	return []string{"run", "--keep-latest=3", "--min-age=none", "--dry-run", "--json",
		"--target", storetest.DefaultTarget, "--fs-root", root}
}

// Run is what one end-to-end run of the CLI cost.
type Run struct {
	// Wall is the wall-clock time from starting the process to its exit.
	Wall time.Duration
	// MaxRSS is the process's peak resident set size, in bytes.
	MaxRSS int64
}

// DryRun runs bin with DryRunArgs(root) as a child process, its standard
// output to stdout (the null device when nil) and its standard error
// captured, and returns its wall-clock time and peak RSS. A non-zero exit
// is an error that carries the command's standard error. The environment
// is the caller's without HAB_GC_* variables, so that no setting of the
// caller's changes the run.
func DryRun(bin, root string, stdout io.Writer) (Run, error) {
	run, _, err := runCLI(exec.Command(bin, DryRunArgs(root)...), stdout)
	return run, err
}

// DryRunRootsOff is DryRun with runtime roots off
// (--runtime-roots=false): no process is read, so nothing is leased
// either, whatever /proc shows. It is the run the issue's "runtime roots
// off" figure is of, the same on a machine whose PID 1 cannot be
// inspected (where DryRun is blind) as on one whose can.
func DryRunRootsOff(bin, root string, stdout io.Writer) (Run, error) {
	run, _, err := runCLI(exec.Command(bin, append(DryRunArgs(root), "--runtime-roots=false")...), stdout)
	return run, err
}

// ErrCannotBlind is BlindDryRun's error where it cannot make a blind run:
// not root, or no setpriv.
var ErrCannotBlind = errors.New("benchstore: a blind run needs root and util-linux setpriv")

// BlindDryRun is DryRun made blind, as in most containers and hardened
// units: the CLI runs as root without CAP_SYS_PTRACE (util-linux
// setpriv, which execs it, so that its peak RSS is still read), so that
// /proc does not show it the processes that keep that capability (this
// benchmark, PID 1), and it checks every file of every release to remove
// with a write lease. It fails unless the run says it did.
func BlindDryRun(bin, root string, stdout io.Writer) (Run, error) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil || os.Geteuid() != 0 {
		return Run{}, ErrCannotBlind
	}
	args := append([]string{"--inh-caps=-sys_ptrace", "--bounding-set=-sys_ptrace", "--", bin}, DryRunArgs(root)...)
	run, stderr, err := runCLI(exec.Command(setpriv, args...), stdout)
	if err == nil && !bytes.Contains(stderr, []byte("checked with write leases")) {
		err = fmt.Errorf("benchstore: the blind run checked no write leases: %s", stderr)
	}
	return run, err
}

// runCLI runs cmd, its standard output to stdout (the null device when
// nil), and returns what it cost and its standard error.
func runCLI(cmd *exec.Cmd, stdout io.Writer) (Run, []byte, error) {
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HAB_GC_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if stdout == nil {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return Run{}, nil, err
		}
		defer null.Close()
		stdout = null
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Run{}, nil, fmt.Errorf("benchstore: %s: %w", strings.Join(cmd.Args, " "), err)
	}
	// The peak RSS is the child's own high-water mark (VmHWM), read from
	// /proc while it runs. The rusage wait4 returns is no use here: Go
	// starts children with vfork, and exec records the parent's peak RSS
	// (this benchmark's, which holds whole inventories) as the child's
	// ru_maxrss.
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var max int64
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if hwm := vmHWM(status); hwm > max {
				max = hwm
			}
			select {
			case <-done:
				peak <- max
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	rss := <-peak
	if err != nil {
		return Run{}, stderr.Bytes(), fmt.Errorf("benchstore: %s: %w\n%s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
	}
	if rss == 0 {
		return Run{}, stderr.Bytes(), errors.New("benchstore: no VmHWM read for the child process (no /proc?)")
	}
	return Run{Wall: wall, MaxRSS: rss}, stderr.Bytes(), nil
}

// vmHWM reads a process's peak RSS in bytes from its /proc status file,
// or 0 when it cannot (the process has ended, or has no memory).
func vmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// CheckDryRun runs DryRun on a store of n releases with its output kept,
// and fails unless the JSON plan is a dry run covering exactly n releases
// with no problems. Benchmarks call it once before timing DryRun with its
// output discarded.
func CheckDryRun(bin, root string, n int) (Run, error) {
	var out bytes.Buffer
	run, err := DryRun(bin, root, &out)
	if err != nil {
		return run, err
	}
	var rep struct {
		DryRun   bool              `json:"dry_run"`
		Releases []json.RawMessage `json:"releases"`
		Summary  struct {
			Releases int `json:"releases"`
		} `json:"summary"`
		Problems []json.RawMessage `json:"problems"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return run, fmt.Errorf("benchstore: the dry run's JSON: %w", err)
	}
	if !rep.DryRun || rep.Summary.Releases != n || len(rep.Releases) != n || len(rep.Problems) != 0 {
		return run, fmt.Errorf("benchstore: the dry run planned %d releases (%d listed, dry_run %v, %d problems), want %d releases, a dry run, no problems",
			rep.Summary.Releases, len(rep.Releases), rep.DryRun, len(rep.Problems), n)
	}
	return run, nil
}
