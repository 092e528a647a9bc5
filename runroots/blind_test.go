//go:build linux

package runroots_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

// blindEnv switches a re-executed test binary into blindPlan: it plans
// keep-latest=1 with runtime roots for the FS root the variable names
// (";best-effort" appended: ModeBestEffort) and prints a blindOutcome
// as JSON.
const blindEnv = "HAB_GC_RUNROOTS_BLIND_PLAN"

// blindOutcome is what the re-executed planner saw and decided about
// oldApp.
type blindOutcome struct {
	Action  string             `json:"action"`
	Reasons []retention.Reason `json:"reasons"`
	Err     string             `json:"err"`
	Unknown bool               `json:"unknown"` // the error wraps ErrRootsUnknown
	Counts  map[string]int     `json:"counts"`
	Summary string             `json:"summary"`
	// Apply mode: what Apply did with oldApp.
	Status        string             `json:"status"`
	StatusReasons []retention.Reason `json:"status_reasons"`
	// Kept is every release the plan keeps for being in use, with its
	// in-use reason's text.
	Kept map[string]string `json:"kept"`
}

// runBlindHelper runs blindPlan when the test binary was re-executed for
// it (called first in TestMain), and never returns then.
func runBlindHelper() {
	v := os.Getenv(blindEnv)
	if v == "" {
		return
	}
	root, mode, _ := strings.Cut(v, ";")
	mode, procRoot, _ := strings.Cut(mode, ";")
	var out blindOutcome
	s, err := pkgstore.Open(root)
	if err == nil {
		defer s.Close()
		m := runroots.ModeOn
		if mode == "best-effort" {
			m = runroots.ModeBestEffort
		}
		pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, RuntimeRoots: runroots.ModeOff,
			RootFinders: []retention.RootFinder{runroots.FinderAt(procRoot, m)}}
		var plan *retention.Plan
		plan, err = retention.PlanStore(context.Background(), s, pol, time.Now(), pkgstore.Options{Target: storetest.DefaultTarget})
		if err == nil {
			d, _ := plan.Decision(pkgstore.MustParseIdent(oldApp))
			out.Action, out.Reasons = string(d.Action), d.Reasons
			out.Kept = map[string]string{}
			for _, d := range plan.Decisions {
				for _, r := range d.Reasons {
					if r.Code == retention.CodeInUse {
						out.Kept[d.Release.Ident.String()] = r.Text
					}
				}
			}
			for _, f := range plan.Found {
				if f.Source == "processes" {
					out.Counts, out.Summary = f.Counts, f.Summary
				}
			}
		}
		if err == nil && mode == "apply" {
			// Say "settling" once the releases are hidden, and wait for
			// the test to start its process before the final check.
			onPhase := func(e retention.PhaseEvent) {
				if e.Phase == retention.PhaseSettle {
					fmt.Println("settling")
					bufio.NewReader(os.Stdin).ReadString('\n')
				}
			}
			var res *retention.Result
			res, err = plan.Apply(context.Background(), s, retention.ApplyOptions{Settle: time.Millisecond, OnPhase: onPhase})
			if res != nil {
				for _, o := range res.Outcomes {
					if o.Ident.String() == oldApp {
						out.Status, out.StatusReasons = string(o.Status), o.Reasons
					}
				}
			}
		}
	}
	if err != nil {
		out.Err, out.Unknown = err.Error(), errors.Is(err, retention.ErrRootsUnknown)
	}
	json.NewEncoder(os.Stdout).Encode(out)
	os.Exit(0)
}

// planWithout plans keep-latest=1 for the store under root in this test
// binary re-executed by util-linux setpriv without the capabilities named
// (e.g. "sys_ptrace"), so that /proc hides from it the processes that
// have them (the test's own children do).
func planWithout(t *testing.T, root, mode string, caps ...string) blindOutcome {
	t.Helper()
	drop := "-" + strings.Join(caps, ",-")
	return planAs(t, root, mode, "--inh-caps="+drop, "--bounding-set="+drop)
}

// planAs is planWithout with setpriv's arguments given (mode may be
// followed by ";PROCROOT").
func planAs(t *testing.T, root, mode string, setprivArgs ...string) blindOutcome {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the scan must be root without CAP_SYS_PTRACE")
	}
	setpriv := testtool.Need(t, "setpriv", "util-linux") // drops CAP_SYS_PTRACE
	cmd := exec.Command(setpriv, append(setprivArgs, "--", os.Args[0])...)
	return runBlindPlanner(t, cmd, root+";"+mode, func(err error, stderr string) {
		t.Fatalf("blind planner: %v\n%s", err, stderr)
	})
}

// runBlindPlanner runs cmd, which runs this test binary as blindPlan for
// blindEnv's value env, and returns what it printed; when cmd fails, it
// calls failed (which must end the test) with its error and stderr.
func runBlindPlanner(t *testing.T, cmd *exec.Cmd, env string, failed func(err error, stderr string)) blindOutcome {
	t.Helper()
	cmd.Env = append(os.Environ(), blindEnv+"="+env)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		failed(err, stderr.String())
	}
	var out blindOutcome
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("blind planner said %q: %v", raw, err)
	}
	return out
}

// TestBlindScanKeepsWhatProcessesUse: root without
// CAP_SYS_PTRACE cannot read the fd, exe and cwd links of processes that
// hold capabilities it lacks (here: this test's children, with every
// capability); without CAP_SYS_ADMIN and CAP_PERFMON either (a container's
// root), not their maps and environ. A release one of them executes, maps
// or holds open is still kept, by the write-lease probe; with nothing in
// use a normal plan is made (PID 1, unreadable too, does not make it
// refuse).
func TestBlindScanKeepsWhatProcessesUse(t *testing.T) {
	cases := []struct {
		how  proctest.How
		file string
	}{
		{proctest.Exec, "bin/app"},
		{proctest.Open, "share/data.txt"},
		{proctest.Map, "lib/libapp.so"},
	}
	for _, drop := range [][]string{{"sys_ptrace"}, {"sys_ptrace", "sys_admin", "perfmon"}} {
		t.Run("without "+strings.Join(drop, ","), func(t *testing.T) {
			for _, tc := range cases {
				t.Run(string(tc.how), func(t *testing.T) {
					b := appStore(t)
					var p *proctest.Proc
					if tc.how == proctest.Exec {
						// Not named on its command line either.
						p = startAs(t, b.PkgPath(oldApp)+"/"+tc.file, "app", "600")
					} else {
						p = proctest.Start(t, tc.how, b.PkgPath(oldApp)+"/"+tc.file)
					}
					out := planWithout(t, b.Root, "", drop...)
					if out.Err != "" {
						t.Fatalf("blind plan failed: %s", out.Err)
					}
					if out.Counts["denied"] == 0 {
						t.Fatalf("the planner was not blind (counts %v): the test proves nothing", out.Counts)
					}
					if out.Action != string(retention.Keep) || !hasReason(out.Reasons, retention.CodeInUse, tc.file) {
						t.Fatalf("process %d %ss %s; blind plan (%s): %s %+v; want keep, in-use naming the file", p.PID(), tc.how, tc.file, out.Summary, out.Action, out.Reasons)
					}
				})
			}
			t.Run("nothing in use", func(t *testing.T) {
				b := appStore(t)
				out := planWithout(t, b.Root, "", drop...)
				if out.Err != "" || out.Action != string(retention.Remove) {
					t.Fatalf("blind plan with nothing in use: %s %+v %s; want remove", out.Action, out.Reasons, out.Err)
				}
			})
		})
	}
}

// TestBlindScanManyReleases: the lease probe checks the releases to remove
// on several goroutines; each one a process holds a file of open is kept,
// naming that file, wherever it falls among the others, and every other
// one goes. (the probe was one goroutine, and allocated a
// directory buffer per release.)
func TestBlindScanManyReleases(t *testing.T) {
	b := storetest.New(t)
	const pkgs = 60
	held := map[int]bool{0: true, 7: true, 31: true, 32: true, 59: true}
	for i := range pkgs {
		old := fmt.Sprintf("core/p%02d/1.0.0/20200101000000", i)
		b.Add(storetest.Release{Ident: old, Files: map[string]string{"a/b/c.txt": "c\n", "d.txt": "d\n", "lib/x.so": "x\n"}})
		b.Pkg(fmt.Sprintf("core/p%02d/2.0.0/20210101000000", i))
	}
	for i := range held {
		proctest.Start(t, proctest.Open, b.PkgPath(fmt.Sprintf("core/p%02d/1.0.0/20200101000000", i))+"/a/b/c.txt")
	}
	out := planWithout(t, b.Root, "", "sys_ptrace")
	if out.Err != "" {
		t.Fatalf("blind plan failed: %s", out.Err)
	}
	if out.Counts["denied"] == 0 {
		t.Fatalf("the planner was not blind (counts %v): the test proves nothing", out.Counts)
	}
	if got, want := out.Counts["lease_probed_files"], 3*pkgs; got < want {
		t.Errorf("lease_probed_files %d, want at least %d (3 files of each of %d releases)", got, want, pkgs)
	}
	for i := range pkgs {
		old := fmt.Sprintf("core/p%02d/1.0.0/20200101000000", i)
		why, kept := out.Kept[old]
		switch {
		case held[i] && !kept:
			t.Errorf("%s: a process holds a/b/c.txt open, but the blind plan does not keep it in use (%s)", old, out.Summary)
		case held[i] && !strings.Contains(why, "a/b/c.txt"):
			t.Errorf("%s kept for %q, want the held file named", old, why)
		case !held[i] && kept:
			t.Errorf("%s kept in use (%q), but nothing holds it", old, why)
		}
	}
	if got := out.Counts["lease_busy_releases"]; got != len(held) {
		t.Errorf("lease_busy_releases %d, want %d", got, len(held))
	}
}

// startAs starts the executable file with the given argv (its first
// element need not name the file), stopped when the test ends.
func startAs(t *testing.T, file string, argv ...string) *proctest.Proc {
	t.Helper()
	cmd := &exec.Cmd{Path: file, Args: argv}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proctest.Proc{Cmd: cmd}
	t.Cleanup(p.Stop)
	return p
}

// TestBlindScanRefusesWhenLeasesCannotSee: the release's files belong to
// another user and the planner lacks CAP_LEASE too, so no write lease can
// stand in for the processes it cannot read: the plan is refused
// (ErrRootsUnknown), naming how many and why; best-effort plans anyway.
func TestBlindScanRefusesWhenLeasesCannotSee(t *testing.T) {
	b := appStore(t)
	if err := chownTree(b.PkgPath(oldApp), 65534); err != nil {
		t.Fatal(err)
	}
	proctest.Start(t, proctest.Open, b.PkgPath(oldApp)+"/share/data.txt")
	out := planWithout(t, b.Root, "", "sys_ptrace", "sys_admin", "perfmon", "lease")
	if !out.Unknown || !strings.Contains(out.Err, "CAP_SYS_PTRACE") || !strings.Contains(out.Err, "could not be inspected") {
		t.Fatalf("blind plan, leases impossible: %s %+v err %q; want refused naming CAP_SYS_PTRACE", out.Action, out.Reasons, out.Err)
	}
	t.Logf("refused: %s", out.Err)
	out = planWithout(t, b.Root, "best-effort", "sys_ptrace", "sys_admin", "perfmon", "lease")
	t.Logf("best-effort: %s; %s %+v", out.Summary, out.Action, out.Reasons)
	if out.Err != "" || out.Counts["lease_unprobed_files"] == 0 {
		t.Fatalf("best-effort: %s %+v err %q counts %v; want a plan that says what it could not check", out.Action, out.Reasons, out.Err, out.Counts)
	}
}

func chownTree(dir string, uid int) error {
	return walkAll(dir, func(p string) error { return os.Lchown(p, uid, uid) })
}

func walkAll(dir string, f func(string) error) error {
	if err := f(dir); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	for _, e := range ents {
		p := dir + "/" + e.Name()
		if e.IsDir() {
			if err := walkAll(p, f); err != nil {
				return err
			}
		} else if err := f(p); err != nil {
			return err
		}
	}
	return nil
}

// TestBlindApplyKeepsWhatIsOpenedWhileHidden: a blind run's plan removes
// the old release (nothing uses it); once Apply has hidden it, a process
// (unreadable to the run) opens a file of it under the hidden name; the
// final check's write-lease probe finds it and puts the release back.
func TestBlindApplyKeepsWhatIsOpenedWhileHidden(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the run must be root without CAP_SYS_PTRACE")
	}
	setpriv := testtool.Need(t, "setpriv", "util-linux") // drops CAP_SYS_PTRACE
	b := appStore(t)
	drop := "-sys_ptrace,-sys_admin,-perfmon"
	cmd := exec.Command(setpriv, "--inh-caps="+drop, "--bounding-set="+drop, "--", os.Args[0])
	cmd.Env = append(os.Environ(), blindEnv+"="+b.Root+";apply")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(stdout)
	line, err := r.ReadString('\n')
	if strings.TrimSpace(line) != "settling" {
		t.Fatalf("blind run said %q (%v): %s", line, err, stderr.String())
	}
	hidden, err := filepath.Glob(b.PkgPath("core/app/1.0.0") + "/" + pkgstore.DebrisPrefix + "*")
	if err != nil || len(hidden) != 1 {
		t.Fatalf("hidden directories %v, %v; want the old release's", hidden, err)
	}
	proctest.Start(t, proctest.Open, hidden[0]+"/share/data.txt")
	stdin.Write([]byte("go\n"))
	var out blindOutcome
	if err := json.NewDecoder(r).Decode(&out); err != nil {
		t.Fatalf("blind run: %v: %s", err, stderr.String())
	}
	if out.Action != string(retention.Remove) || out.Counts["denied"] == 0 {
		t.Fatalf("plan: %s %+v (counts %v); want remove, by a blind scan", out.Action, out.Reasons, out.Counts)
	}
	if out.Err != "" || out.Status != string(retention.StatusKept) || !hasReason(out.StatusReasons, retention.CodeInUse, "share/data.txt") {
		t.Fatalf("apply: %s %+v %s; want kept, in use", out.Status, out.StatusReasons, out.Err)
	}
	if _, err := os.Stat(b.PkgPath(oldApp) + "/share/data.txt"); err != nil {
		t.Fatalf("not put back: %v", err)
	}
}

// TestBlindScanOnOverlayfs: on overlayfs a file mapped through the overlay
// and then closed holds the lower file, so a lease on the overlay's file
// does not see it (checked on Linux 6.18). A blind scan that could not read
// some process's maps therefore refuses there; one that could (root with
// CAP_SYS_ADMIN or CAP_PERFMON but without CAP_SYS_PTRACE) sees the mapping
// in maps and keeps the release.
func TestBlindScanOnOverlayfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: overlayfs mount")
	}
	base := t.TempDir()
	lower, upper, work, merged := base+"/lower", base+"/upper", base+"/work", base+"/merged"
	for _, d := range []string{upper, work, merged} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lb := storetest.At(t, lower)
	lb.Add(storetest.Release{Ident: oldApp, Files: map[string]string{"share/data.txt": "data\n", "lib/libapp.so": "not really a library\n"}})
	lb.Pkg("core/app/2.0.0/20210101000000")
	if err := syscall.Mount("overlay", merged, "overlay", 0, "lowerdir="+lower+",upperdir="+upper+",workdir="+work); err != nil {
		t.Skip("cannot mount overlayfs:", err)
	}
	t.Cleanup(func() { syscall.Unmount(merged, syscall.MNT_DETACH) })
	lib := merged + "/" + pkgstore.StoreDir + "/" + oldApp + "/lib/libapp.so"
	proctest.Start(t, proctest.Map, lib)

	out := planWithout(t, merged, "", "sys_ptrace", "sys_admin", "perfmon")
	if !out.Unknown || !strings.Contains(out.Err, "overlayfs") {
		t.Fatalf("blind plan on overlayfs, maps unreadable: %s %+v err %q; want refused naming overlayfs", out.Action, out.Reasons, out.Err)
	}
	out = planWithout(t, merged, "", "sys_ptrace")
	if out.Err != "" || out.Action != string(retention.Keep) || !hasReason(out.Reasons, retention.CodeInUse, "lib/libapp.so mapped") {
		t.Fatalf("blind plan on overlayfs, maps readable: %s %+v err %q; want keep, the mapping seen", out.Action, out.Reasons, out.Err)
	}
}

// TestBlindScanHidepid: a proc file system mounted with hidepid=invisible
// does not list other users' processes to a scan that is not root, which
// cannot count them. Such a scan is blind: a release a hidden process
// holds open is kept by the lease probe (the scanning user owns its
// files), and one of a store it does not own is refused.
func TestBlindScanHidepid(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: mounting proc, running as another user")
	}
	proc := t.TempDir()
	if err := syscall.Mount("proc", proc, "proc", 0, "hidepid=invisible"); err != nil {
		t.Skip("cannot mount proc with hidepid:", err)
	}
	t.Cleanup(func() { syscall.Unmount(proc, syscall.MNT_DETACH) })
	nobody := []string{"--reuid=65534", "--regid=65534", "--clear-groups"}
	for _, own := range []bool{true, false} {
		b := appStore(t)
		// The user must reach the store: t.TempDir's directories are 0700.
		testtool.OpenToOthers(t, b.Root)
		if own {
			if err := chownTree(b.PkgPath(oldApp), 65534); err != nil {
				t.Fatal(err)
			}
		}
		p := proctest.Start(t, proctest.Open, b.PkgPath(oldApp)+"/share/data.txt")
		if _, err := os.Stat(proc + "/" + fmt.Sprint(p.PID())); err != nil {
			t.Fatalf("root does not see process %d in the hidepid proc: %v", p.PID(), err)
		}
		out := planAs(t, b.Root, ";"+proc, nobody...)
		switch {
		case own && (out.Err != "" || out.Action != string(retention.Keep) || !hasReason(out.Reasons, retention.CodeInUse, "share/data.txt")):
			t.Fatalf("hidepid, own store: %s %+v err %q (%s); want keep by lease", out.Action, out.Reasons, out.Err, out.Summary)
		case !own && (!out.Unknown || !strings.Contains(out.Err, "hidepid=invisible") || !strings.Contains(out.Err, "not root")):
			t.Fatalf("hidepid, root's store: %s %+v err %q; want refused naming hidepid and not root", out.Action, out.Reasons, out.Err)
		}
	}
}

// TestBlindScanInChildPIDNamespace: a scan in a PID namespace of its own
// (a container sharing the host's store) lists only its own processes; a
// process outside holding a release open is invisible to it. Such a scan
// is blind, and the lease probe keeps the release.
func TestBlindScanInChildPIDNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: a new PID namespace")
	}
	unshare := testtool.Need(t, "unshare", "util-linux")
	b := appStore(t)
	p := proctest.Start(t, proctest.Open, b.PkgPath(oldApp)+"/share/data.txt")
	cmd := exec.Command(unshare, "--pid", "--fork", "--mount-proc", "--", os.Args[0])
	out := runBlindPlanner(t, cmd, b.Root+";", func(err error, stderr string) {
		t.Skipf("cannot run in a new PID namespace: %v: %s", err, stderr)
	})
	if out.Counts["processes"] > 5 {
		t.Fatalf("counts %v: the planner did not run in a PID namespace of its own", out.Counts)
	}
	if out.Err != "" || out.Action != string(retention.Keep) || !hasReason(out.Reasons, retention.CodeInUse, "share/data.txt") {
		t.Fatalf("process %d outside the planner's PID namespace holds %s open; plan (%s): %s %+v err %q; want keep by lease", p.PID(), oldApp, out.Summary, out.Action, out.Reasons, out.Err)
	}
	if out.Counts["child_pid_namespace"] != 1 {
		t.Fatalf("counts %v: want child_pid_namespace", out.Counts)
	}
}
