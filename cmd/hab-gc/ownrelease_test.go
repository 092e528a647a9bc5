package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestOwnRunningReleaseKept: hab-gc run from inside a release (as the
// Supervisor runs the hab-gc package) never removes that release, though
// the policy alone would: runtime roots see the process's executable in
// it (code in-use). The process is a copy of this test binary in an old
// release of habgc/hab-gc in a temporary store, run as hab-gc (see
// TestMain); a scheduled prune run by it removes other old releases and
// keeps its own. Once no process runs from it, the plan removes it.
func TestOwnRunningReleaseKept(t *testing.T) {
	t.Parallel()
	const own, newer = "habgc/hab-gc/0.1.0/20200101000000", "habgc/hab-gc/0.2.0/20200201000000"
	b := hostStore(t)
	b.Pkg(own).Pkg(newer).Pkg("core/a/1/20200101000000").Pkg("core/a/2/20200101000000")
	name := "hab-gc"
	if runtime.GOOS == "windows" {
		name += ".exe" // as a Windows package ships it: Windows runs a program by its extension
	}
	copyExe := testtool.CopyTestBinary(t, filepath.Join(b.PkgPath(own), "bin"), name)
	// habgc runs the copy; it returns stdout, then stderr.
	habgc := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr strings.Builder
		cmd := &exec.Cmd{Path: copyExe, Args: append([]string{"hab-gc"}, args...), Stdout: &stdout, Stderr: &stderr}
		if err := cmd.Run(); err != nil {
			t.Fatalf("hab-gc %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}

	// Its own plan, from inside the release: kept, in use.
	var rep struct {
		Releases []struct {
			Ident   string       `json:"ident"`
			Action  string       `json:"action"`
			Reasons []reasonJSON `json:"reasons"`
		} `json:"releases"`
	}
	out, _ := habgc("run", "--dry-run", "--json", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	inUse := false
	for _, r := range rep.Releases {
		if r.Ident == own {
			inUse = r.Action == "keep" && slices.ContainsFunc(r.Reasons, func(x reasonJSON) bool {
				return x.Code == "in-use"
			})
		}
	}
	if !inUse {
		t.Fatalf("the running release is not kept as in use:\n%s", out)
	}

	// A scheduled prune, run by the daemon from inside the release.
	sched := filepath.Join(testtool.TempDir(t), "schedules")
	schedtest.Write(t, sched, "p", schedtest.Prune(b.Root, "@daily-random"))
	state := filepath.Join(testtool.TempDir(t), "state.json")
	habgc("daemon", "--once", "--catch-up-spread", "0", "--schedules", sched, "--state", state, "--now", "2026-06-01T00:00:00Z")
	_, out = habgc("daemon", "--once", "--catch-up-spread", "0", "--schedules", sched, "--state", state, "--now", "2026-06-04T00:00:00Z")
	if !strings.Contains(out, "job ran") {
		t.Fatalf("the prune did not run:\n%s", out)
	}
	if _, err := os.Stat(b.PkgPath("core/a/1/20200101000000")); !os.IsNotExist(err) {
		t.Fatalf("the prune did not remove core/a/1: %v\n%s", err, out)
	}
	if _, err := os.Stat(copyExe); err != nil {
		t.Fatalf("hab-gc removed its own running release: %v\n%s", err, out)
	}

	// Nothing runs from it now: the same policy removes it.
	if action, _ := reasonOf(t, []string{"run", "--dry-run", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root}, own, "superseded"); action != "remove" {
		t.Fatalf("with no process in it, the release is not removed (%q): the test above proves nothing", action)
	}
}
