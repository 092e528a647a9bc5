package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// blindHabGC runs this test binary as hab-gc (see TestMain) through
// util-linux setpriv without the capabilities named, so that /proc does
// not show it the processes that have them (this test's children). It
// returns the exit code, the decoded --json report and stderr.
func blindHabGC(t *testing.T, env []string, drop []string, args ...string) (int, map[string]any, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: hab-gc must run as root without CAP_SYS_PTRACE")
	}
	setpriv := testtool.Need(t, "setpriv", "util-linux") // drops CAP_SYS_PTRACE
	exe := testtool.Executable(t)
	link := filepath.Join(testtool.TempDir(t), "hab-gc")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	caps := "-" + strings.Join(drop, ",-")
	cmd := exec.Command(setpriv, append([]string{"--inh-caps=" + caps, "--bounding-set=" + caps, "--", link}, append(args, "--json")...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCodeOf(t, cmd.Run())
	var rep map[string]any
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("bad JSON: %v\n%s", err, stdout.String())
		}
	}
	return code, rep, stderr.String()
}

// processCounts returns the root_sources counts of the "processes" source.
func processCounts(rep map[string]any) map[string]any {
	srcs, _ := rep["root_sources"].([]any)
	for _, s := range srcs {
		if m, _ := s.(map[string]any); m["source"] == "processes" {
			c, _ := m["counts"].(map[string]any)
			return c
		}
	}
	return nil
}

// releaseOf is ident's entry in a --json report's releases (nil when it
// is not there).
func releaseOf(t *testing.T, rep map[string]any, ident string) map[string]any {
	t.Helper()
	rels, _ := rep["releases"].([]any)
	for _, r := range rels {
		if m, _ := r.(map[string]any); m["ident"] == ident {
			return m
		}
	}
	return nil
}

// TestRunBlind: hab-gc run as
// root without CAP_SYS_PTRACE (nor CAP_SYS_ADMIN, CAP_PERFMON: a
// container's root) cannot read the processes that hold more
// capabilities. A release one of them holds open is kept (write lease),
// exit 0, and the JSON report's root_sources say the scan was blind; when
// a lease cannot check the files either (another user's files, no
// CAP_LEASE) the run is refused with exit 3, saying how many processes and
// why, unless --runtime-roots=best-effort (or HAB_GC_RUNTIME_ROOTS).
func TestRunBlind(t *testing.T) {
	noPtrace := []string{"sys_ptrace", "sys_admin", "perfmon"}
	newStore := func(t *testing.T) *storetest.Builder {
		b := storetest.New(t)
		b.Add(storetest.Release{Ident: old, Files: map[string]string{"share/data.txt": "data\n"}})
		b.Pkg("core/app/2.0.0/20210101000000")
		proctest.Start(t, proctest.Open, b.PkgPath(old)+"/share/data.txt")
		return b
	}
	args := func(b *storetest.Builder, more ...string) []string {
		return append([]string{"run", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root}, more...)
	}

	t.Run("kept by a write lease", func(t *testing.T) {
		b := newStore(t)
		code, rep, stderr := blindHabGC(t, nil, noPtrace, args(b, "--verbose")...)
		c := processCounts(rep)
		if code != exitOK || c["blind"] != 1.0 || c["no_ptrace"] != 1.0 || c["lease_busy_releases"] != 1.0 {
			t.Fatalf("exit %d, counts %v, stderr %s; want 0, blind, one release in use by lease", code, c, stderr)
		}
		if _, err := os.Stat(b.PkgPath(old) + "/share/data.txt"); err != nil {
			t.Fatalf("release held open was removed: %v", err)
		}
		// The real run's leases are checked under the lock (its plan
		// leaves them to Apply: retention.PlanToApply), and said so
		// (--verbose).
		if !strings.Contains(stderr, "hab-gc: under the lock: ") || !strings.Contains(stderr, "write leases: ") {
			t.Fatalf("stderr %s: want what the write leases found under the lock", stderr)
		}
		if rel := releaseOf(t, rep, old); rel["action"] != "remove" || fmt.Sprint(rel["outcome"]) == "<nil>" || rel["outcome"].(map[string]any)["status"] != "kept" {
			t.Fatalf("%s in the report: %v; want planned for removal, kept at the run", old, rel)
		}
	})

	t.Run("leases impossible", func(t *testing.T) {
		b := newStore(t)
		for _, p := range []string{"", "/share", "/share/data.txt", "/IDENT", "/DEPS", "/TDEPS", "/TARGET"} {
			os.Lchown(b.PkgPath(old)+p, 65534, 65534)
		}
		drop := append(noPtrace, "lease")
		code, _, stderr := blindHabGC(t, nil, drop, args(b)...)
		if code != exitRefused || !strings.Contains(stderr, "could not be inspected fully (no CAP_SYS_PTRACE)") || !strings.Contains(stderr, "--runtime-roots=best-effort") {
			t.Fatalf("exit %d, stderr %s; want %d naming the processes and CAP_SYS_PTRACE", code, stderr, exitRefused)
		}
		if _, err := os.Stat(b.PkgPath(old) + "/share/data.txt"); err != nil {
			t.Fatalf("refused run removed the release: %v", err)
		}
		for _, how := range []struct {
			env  []string
			args []string
		}{{nil, []string{"--runtime-roots=best-effort"}}, {[]string{"HAB_GC_RUNTIME_ROOTS=best-effort"}, nil}} {
			code, rep, stderr := blindHabGC(t, how.env, drop, args(b, append(how.args, "--dry-run")...)...)
			if c := processCounts(rep); code != exitOK || c["blind"] != 1.0 || c["lease_unprobed_files"] == nil || c["lease_unprobed_files"] == 0.0 {
				t.Fatalf("best-effort (%v %v): exit %d, counts %v, stderr %s; want 0, saying what it could not check", how.env, how.args, code, c, stderr)
			}
		}
	})
}
