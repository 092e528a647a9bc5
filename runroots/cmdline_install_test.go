//go:build linux

package runroots_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

const cmdlineEnv = "HAB_GC_CMDLINE_HELPER"

// runCmdlineHelper is this test binary run as `hab pkg install ...`: it
// says ready and sleeps.
func runCmdlineHelper() {
	if os.Getenv(cmdlineEnv) == "" {
		return
	}
	os.Stdout.WriteString("ready\n")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// startCmdlineHelper starts cmd, this test binary run as runCmdlineHelper,
// waits until it says ready, and kills it when the test ends.
func startCmdlineHelper(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("helper: %q", line)
	}
}

// planCmdline plans keep-latest=1 with runtime roots for the store under
// fsRoot (open until the test ends).
func planCmdline(t *testing.T, fsRoot string) *retention.Plan {
	t.Helper()
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	p, err := retention.PlanStore(context.Background(), storetest.Open(t, fsRoot), pol, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHabInstallCommandHoldsRemovals: a `hab pkg
// install` or `hab svc load` running is an install in progress even
// between the opens of its archives, where no file shows it (Habitat
// reads, verifies and unpacks a cached archive in three separate opens:
// components/common/src/command/package/install.rs): every removal waits,
// and the reason names the process and its command line. Other hab
// commands, and a command named otherwise, hold nothing.
func TestHabInstallCommandHoldsRemovals(t *testing.T) {
	exe := testtool.Executable(t)
	for _, tc := range []struct {
		name  string
		args  []string
		holds bool
	}{
		{"hab pkg install", []string{"hab", "pkg", "install", "--binlink", "core/app"}, true},
		{"hab svc load", []string{"/hab/bin/hab", "svc", "load", "core/app"}, true},
		{"hab pkg list", []string{"hab", "pkg", "list", "--all"}, false},
		{"not hab", []string{"habx", "pkg", "install", "core/app"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Add(storetest.Release{Ident: "core/app/1/20200101000000"}, storetest.Release{Ident: "core/app/2/20200201000000"})
			cmd := &exec.Cmd{Path: exe, Args: tc.args, Env: append(os.Environ(), cmdlineEnv+"=1", "FS_ROOT="+b.Root)}
			startCmdlineHelper(t, cmd)
			p := planCmdline(t, b.Root)
			d, _ := p.Decision(pkgstore.MustParseIdent("core/app/1/20200101000000"))
			if got := d.Action == retention.Keep; got != tc.holds {
				t.Fatalf("core/app/1: %s %v (install wait %q), want kept %v", d.Action, d.Reasons, p.InstallWait, tc.holds)
			}
			if tc.holds && (!strings.Contains(p.InstallWait, "runs "+strings.Join(tc.args, " ")) || !strings.Contains(p.InstallWait, "process")) {
				t.Errorf("the wait does not name the process and its command line: %q", p.InstallWait)
			}
		})
	}
}
