//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// Run --dry-run as a normal user (nobody), who cannot
// see most processes, shows the plan (exit 0) and says what it could not
// see, instead of refusing (exit 3): a dry run removes nothing.
func TestDryRunAsNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run hab-gc as another user")
	}
	dir := testtool.WorldTempDir(t, "hab-gc-nonroot-")
	bin := testtool.CopyTestBinary(t, dir, "hab-gc")
	b := storetest.At(t, filepath.Join(dir, "fs")).Old("core/a/1/20200101000000", "core/a/2/20200201000000")
	var stdout, stderr bytes.Buffer
	cmd := &exec.Cmd{Path: bin, Args: []string{"hab-gc", "run", "--dry-run", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root},
		Stdout: &stdout, Stderr: &stderr, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"},
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}}
	err := cmd.Run()
	if err != nil || !strings.Contains(stdout.String(), "core/a/1/20200101000000") {
		t.Fatalf("dry run as nobody: %v; stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "could not be inspected fully") {
		t.Errorf("the dry run does not say what it could not see: stderr %q", stderr.String())
	}
	// One sentence: the process it could not inspect, by PID and
	// program, and what it did about it; the detail is behind --verbose.
	if !regexp.MustCompile(`^hab-gc: process \d+ \(.+\)( and \d+ other process(es)?)? could not be inspected fully \(not root\): the 1 release\(s\) to remove were checked with write leases instead(; .+)?\n$`).MatchString(stderr.String()) {
		t.Errorf("the dry run as nobody does not say it in one sentence naming the process: stderr %q", stderr.String())
	}

	// A real run (past the blind check) cannot open root's lock file: it
	// says it needs root, with the exit code of a refusal (3), not 1.
	stdout.Reset()
	stderr.Reset()
	cmd = &exec.Cmd{Path: bin, Args: []string{"hab-gc", "run", "--keep-latest=1", "--min-age=none", "--runtime-roots=best-effort", "--fs-root", b.Root},
		Stdout: &stdout, Stderr: &stderr, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"},
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}}
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitRefused || !strings.Contains(stderr.String(), "needs root") {
		t.Errorf("real run as nobody: %v; stderr %q; want exit %d saying it needs root", err, stderr.String(), exitRefused)
	}
	if !strings.HasPrefix(stderr.String(), "hab-gc: ") || strings.Contains(stderr.String(), "history could not be written") {
		t.Errorf("real run as nobody: stderr %q; want the reason first and alone", stderr.String())
	}
	if _, err := os.Stat(b.PkgPath("core/a/1/20200101000000")); err != nil {
		t.Errorf("the refused run removed a release: %v", err)
	}
}
