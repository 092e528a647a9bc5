package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// purgedLine is a watch purge's log record after core/redis's update.
var purgedLine = regexp.MustCompile(`msg=purged .*package=core/redis trigger=load`)

// restartService does what the Supervisor does as it starts service name
// (`hab svc load`, a restart into an update): a real process, and its PID
// file renamed into place (storetest.WritePIDFile: supervisor.rs
// create_pidfile), which is what makes watch purge the service.
func restartService(t *testing.T, root, name string) {
	t.Helper()
	p := proctest.Start(t, proctest.Exec, proctest.Sleep(t))
	if _, err := storetest.WritePIDFile(root, name, p.PID()); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls until cond holds or 20s pass.
func waitFor(t *testing.T, what string, cond func() bool, stderr *testtool.SyncBuffer) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s; stderr:\n%s", what, stderr)
		}
	}
}

// TestWatchCommand: `hab-gc watch` (this test binary run as hab-gc) purges
// a loaded service's oldest release after a new one is installed as
// Habitat installs it, writes the purge to the history and the metrics
// file, and stops on SIGTERM with exit 0 (on Windows it is killed:
// testtool.Terminate).
func TestWatchCommand(t *testing.T) {
	t.Parallel()
	exe := testtool.Executable(t)
	b := hostStore(t)
	b.Old("core/redis/6.2.5/20200101000000", "core/redis/6.2.6/20200201000000", "core/nginx/1/20200101000000", "core/nginx/1/20200201000000")
	b.Spec("redis", "core/redis")
	prom := testtool.TempDir(t) + "/hab_gc.prom"
	stderr := &testtool.SyncBuffer{}
	cmd := &exec.Cmd{Path: exe, Args: []string{"hab-gc", "watch", "--fs-root", b.Root, "--keep-latest=1", "--min-age=none",
		"--runtime-roots=false", "--delay=200ms", "--metrics-file", prom}, Stderr: stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// At start, as the Supervisor, the loaded service's package is
	// purged: 6.2.5 goes.
	waitFor(t, "purged at start", func() bool { return strings.Contains(stderr.String(), "msg=purged package=core/redis trigger=start") }, stderr)
	in := hostInstaller(b, 3)
	in.Publish(storetest.Archive{Ident: "core/redis/7.0.1/20260101000000"}, storetest.Archive{Ident: "core/nginx/2/20260101000000"})
	for _, id := range []string{"core/redis/7.0.1/20260101000000", "core/nginx/2/20260101000000"} {
		if err := in.Install(id); err != nil {
			t.Fatal(err)
		}
	}
	restartService(t, b.Root, "redis")
	waitFor(t, "purged", func() bool { return purgedLine.MatchString(stderr.String()) }, stderr)
	if err := testtool.Terminate(t, cmd); err != nil {
		t.Fatalf("watch exited with %v; stderr:\n%s", err, stderr)
	}
	for id, want := range map[string]bool{
		"core/redis/6.2.5/20200101000000": false, "core/redis/6.2.6/20200201000000": false, "core/redis/7.0.1/20260101000000": true,
		"core/nginx/1/20200101000000": true, "core/nginx/1/20200201000000": true, "core/nginx/2/20260101000000": true,
	} {
		if _, err := os.Stat(b.PkgPath(id)); (err == nil) != want {
			t.Errorf("%s installed: %v, want %v", id, err == nil, want)
		}
	}
	if n := strings.Count(stderr.String(), "msg=purged"); n != 2 {
		t.Errorf("%d purges, want 2 (core/redis only: at start, after its restart into its update); stderr:\n%s", n, stderr)
	}
	j, err := history.ForFSRoot(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := j.Read()
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, r := range recs {
		if r.Job == "watch" && r.Outcome == "removed" {
			removed++
		}
	}
	if removed != 2 {
		t.Errorf("history has %d watch removals, want 2: %+v", removed, recs)
	}
	// A watch started by hand is not a scheduled one.
	var out, errOut bytes.Buffer
	if code := execute([]string{"history", "--fs-root", b.Root}, &out, &errOut, noEnv); code != exitOK {
		t.Fatalf("history: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "by hab-gc watch (") || strings.Contains(out.String(), "scheduled") {
		t.Errorf("history does not say hab-gc watch made the records:\n%s", out.String())
	}
	data, err := os.ReadFile(prom)
	if err != nil || !strings.Contains(string(data), `type="watch"`) {
		t.Errorf("metrics file %v:\n%s", err, data)
	}
}

// TestDaemonWatches: a schedule definition's [watch] table makes
// `hab-gc daemon` watch its store beside its jobs: a new release of a
// loaded service is purged with the table's policy (keep_latest_for
// included); a package no spec loads is left alone.
func TestDaemonWatches(t *testing.T) {
	t.Parallel()
	exe := testtool.Executable(t)
	b := hostStore(t)
	b.Old(
		"core/redis/6.2.5/20200101000000", "core/redis/6.2.6/20200201000000", "core/redis/6.2.7/20200301000000",
		"core/nginx/1/20200101000000", "core/nginx/1/20200201000000",
	)
	b.Spec("redis", "core/redis")
	dir := testtool.TempDir(t)
	schedtest.Write(t, dir, "sup", schedtest.Watch(b.Root, `min_age = "none"`, `delay = "200ms"`, `keep_latest_for = { "core/redis" = 2 }`))
	stderr := &testtool.SyncBuffer{}
	cmd := &exec.Cmd{Path: exe, Args: []string{"hab-gc", "daemon", "--schedules", dir, "--state", dir + "/state.json"},
		Stderr: stderr, Env: append(os.Environ(), "HAB_GC_RUNTIME_ROOTS=false")}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, "watching", func() bool { return strings.Contains(stderr.String(), "watching the store") }, stderr)
	in := hostInstaller(b, 4)
	in.Publish(storetest.Archive{Ident: "core/redis/7.0.1/20260101000000"}, storetest.Archive{Ident: "core/nginx/2/20260101000000"})
	for _, id := range []string{"core/nginx/2/20260101000000", "core/redis/7.0.1/20260101000000"} {
		if err := in.Install(id); err != nil {
			t.Fatal(err)
		}
	}
	restartService(t, b.Root, "redis")
	// After the update (the purge at start, if it came first, is not the one).
	waitFor(t, "purged", func() bool { return purgedLine.MatchString(stderr.String()) }, stderr)
	if err := testtool.Terminate(t, cmd); err != nil {
		t.Fatalf("daemon exited with %v; stderr:\n%s", err, stderr)
	}
	for id, want := range map[string]bool{
		"core/redis/6.2.5/20200101000000": false, "core/redis/6.2.6/20200201000000": false,
		"core/redis/6.2.7/20200301000000": true, "core/redis/7.0.1/20260101000000": true,
		"core/nginx/1/20200101000000": true, "core/nginx/1/20200201000000": true,
	} {
		if _, err := os.Stat(b.PkgPath(id)); (err == nil) != want {
			t.Errorf("%s installed: %v, want %v", id, err == nil, want)
		}
	}
	if !strings.Contains(stderr.String(), "watch=sup") || !strings.Contains(stderr.String(), "keep-latest-for=core/redis=2") {
		t.Errorf("the purge's log does not name the schedule and its policy:\n%s", stderr)
	}
	// The history names the schedule the watch is of.
	var out, errOut bytes.Buffer
	if code := execute([]string{"history", "--fs-root", b.Root}, &out, &errOut, noEnv); code != exitOK {
		t.Fatalf("history: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "by scheduled watch ") || !strings.Contains(out.String(), "(schedule sup)") {
		t.Errorf("history does not name the schedule's watch:\n%s", out.String())
	}
}

// TestWatchSupervisorCount: with no count of hab-gc's
// own, watch takes the Supervisor's, where and as `hab sup run` reads it
// (habitat-sh/habitat components/hab/src/cli_v4/sup/sup_run.rs: the flag,
// then HAB_KEEP_LATEST_PACKAGES, then keep_latest_packages in
// /hab/sup/default/config/sup.toml; a usize, 0 accepted). Its value is the
// number kept, the running release among them: 0 leaves only the one the
// service runs (uninstall_all_but_latest(ident, 0) skips the loaded one).
// The purge at start shows it, with nothing installed.
func TestWatchSupervisorCount(t *testing.T) {
	t.Parallel()
	exe := testtool.Executable(t)
	const r1, r2, r3 = "core/redis/6.2.5/20200101000000", "core/redis/6.2.6/20200201000000", "core/redis/6.2.7/20200301000000"
	for _, tc := range []struct {
		name, env, supToml string
		want               map[string]bool
	}{
		{"HAB_KEEP_LATEST_PACKAGES=0: only the running release", "0", "", map[string]bool{r1: false, r2: false, r3: true}},
		{"sup.toml's keep_latest_packages", "", "keep_latest_packages = 2\n", map[string]bool{r1: false, r2: true, r3: true}},
		{"the environment before sup.toml", "1", "keep_latest_packages = 2\n", map[string]bool{r1: false, r2: false, r3: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := hostStore(t)
			b.Old(r1, r2, r3)
			b.Spec("redis", "core/redis")
			if tc.supToml != "" {
				b.File("hab/sup/default/config/sup.toml", tc.supToml)
			}
			env := os.Environ()
			if tc.env != "" {
				env = append(env, "HAB_KEEP_LATEST_PACKAGES="+tc.env)
			}
			stderr := &testtool.SyncBuffer{}
			cmd := &exec.Cmd{Path: exe, Args: []string{"hab-gc", "watch", "--fs-root", b.Root, "--min-age=none",
				"--runtime-roots=false", "--delay=200ms"}, Stderr: stderr, Env: env}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			waitFor(t, "purged at start", func() bool { return strings.Contains(stderr.String(), "msg=purged package=core/redis trigger=start") }, stderr)
			if err := testtool.Terminate(t, cmd); err != nil {
				t.Fatalf("watch exited with %v; stderr:\n%s", err, stderr)
			}
			if strings.Contains(stderr.String(), "is ignored") {
				t.Errorf("watch warns that the Supervisor's count is ignored:\n%s", stderr)
			}
			for id, want := range tc.want {
				if _, err := os.Stat(b.PkgPath(id)); (err == nil) != want {
					t.Errorf("%s installed: %v, want %v", id, err == nil, want)
				}
			}
		})
	}
}
