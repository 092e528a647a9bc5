//go:build linux

package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// svcBarrier is a package whose service the tests load and start last:
// once watch has purged it, every purge due before it has run.
const svcBarrier = "core/zzz/1.0.0/20240101000000"

// barrierPurged is a watch log record of core/zzz's purge.
var barrierPurged = regexp.MustCompile(`(?m)^.*purg.*package=core/zzz.*$`)

// startWatch runs `hab-gc watch` (this test binary as hab-gc) on b's store
// with args, until the test ends, and returns once its watches are set.
func startWatch(t *testing.T, b *storetest.Builder, args ...string) (*exec.Cmd, *testtool.SyncBuffer) {
	t.Helper()
	stderr := &testtool.SyncBuffer{}
	cmd := &exec.Cmd{Path: testtool.Executable(t), Args: append([]string{"hab-gc", "watch", "--fs-root", b.Root,
		"--min-age=none", "--delay=200ms"}, args...), Stderr: stderr}
	noErr(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, "watching", func() bool { return strings.Contains(stderr.String(), "watching the store") || exited(cmd) }, stderr)
	if exited(cmd) {
		cmd.Wait() // copies the rest of its stderr
		t.Fatalf("watch ended; stderr:\n%s", stderr)
	}
	return cmd, stderr
}

// exited reports whether cmd's process has ended, leaving it to cmd.Wait
// to reap.
func exited(cmd *exec.Cmd) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo != 0
}

// loadAndStartBarrier does what `hab svc load core/zzz` and the
// Supervisor's start of it do: the spec file, then a process and its PID
// file (storetest.WritePIDFile); it returns once watch has purged core/zzz,
// which the Supervisor does as it starts a service
// (add_service_rsw_mlw_rhw_msr), and so every purge due before.
func loadAndStartBarrier(t *testing.T, b *storetest.Builder, stderr *testtool.SyncBuffer) {
	t.Helper()
	b.Spec("zzz", "core/zzz")
	p := proctest.Start(t, proctest.Exec, proctest.Sleep(t))
	_, err := storetest.WritePIDFile(b.Root, "zzz", p.PID())
	noErr(t, err)
	waitFor(t, "core/zzz purged", func() bool { return barrierPurged.MatchString(stderr.String()) }, stderr)
}

// downSpec writes the spec of a service loaded stopped (`hab svc load`
// then `hab svc stop`, or a spec written with desired_state "down"): the
// Supervisor never starts it (components/sup/src/manager/service/spec.rs
// ServiceSpec::reconcile: (None, Some((Down, _))) needs no operation), so
// never purges it. The fields are storetest.Builder.Spec's.
func downSpec(b *storetest.Builder, name, ident string) {
	b.File("hab/sup/default/specs/"+name+".spec", "ident = \""+ident+"\"\ngroup = \"default\"\nchannel = \"stable\"\n"+
		"topology = \"standalone\"\nupdate_strategy = \"none\"\ndesired_state = \"down\"\nbinds = []\n")
}

// TestWatchKeepsTheReleaseTheSupervisorStarted is
// TestRunKeepsTheReleaseTheSupervisorStarted for watch: 1.0.4 installed
// while the service runs 1.0.3 is not a purge of core/mysite (the
// Supervisor purges when it starts a service, not when a release is
// installed), and no purge removes 1.0.3 while the service's PID file
// names the process started on it.
func TestWatchKeepsTheReleaseTheSupervisorStarted(t *testing.T) {
	t.Parallel()
	b := siteStore(t, svcSite103)
	b.Add(storetest.Release{Ident: svcBarrier, ModTime: storetest.OldTime()})
	startSite(t, b)
	cmd, stderr := startWatch(t, b, "--keep-latest=1")
	in := hostInstaller(b, 46)
	in.Publish(storetest.Archive{Ident: svcSite104, Deps: []string{svcNginx}})
	noErr(t, in.Install(svcSite104))
	loadAndStartBarrier(t, b, stderr)
	if err := testtool.Terminate(t, cmd); err != nil {
		t.Fatalf("watch exited with %v; stderr:\n%s", err, stderr)
	}
	if _, err := os.Stat(b.PkgPath(svcSite103)); err != nil {
		t.Fatalf("watch removed %s, which the service runs: %v\nstderr:\n%s", svcSite103, err, stderr)
	}
}

// TestWatchNeverPurgesDownServices: a service whose spec says
// desired_state "down" is not purged by watch, neither at its start nor
// when its spec appears.
func TestWatchNeverPurgesDownServices(t *testing.T) {
	t.Parallel()
	b := hostStore(t)
	b.Old("core/db/1.0.0/20240101000000", "core/db/2.0.0/20240201000000",
		"core/cache/1.0.0/20240101000000", "core/cache/2.0.0/20240201000000", svcBarrier)
	downSpec(b, "db", "core/db")
	cmd, stderr := startWatch(t, b, "--keep-latest=1")
	downSpec(b, "cache", "core/cache")
	loadAndStartBarrier(t, b, stderr)
	if err := testtool.Terminate(t, cmd); err != nil {
		t.Fatalf("watch exited with %v; stderr:\n%s", err, stderr)
	}
	for _, id := range []string{"core/db/1.0.0/20240101000000", "core/cache/1.0.0/20240101000000"} {
		if _, err := os.Stat(b.PkgPath(id)); err != nil {
			t.Errorf("watch removed %s of a service that is down: %v", id, err)
		}
	}
	if m := regexp.MustCompile(`(?m)^.*purged.*package=core/(db|cache).*$`).FindAllString(stderr.String(), -1); m != nil {
		t.Errorf("watch purged services that are down:\n%s", strings.Join(m, "\n"))
	}
}

// TestRunProtectsDownServices: run keeps what a loaded service's spec
// allows whether it is up or down.
func TestRunProtectsDownServices(t *testing.T) {
	t.Parallel()
	b := hostStore(t)
	b.Old("core/db/1.0.0/20240101000000", "core/db/2.0.0/20240201000000")
	downSpec(b, "db", "core/db")
	args := []string{"run", "--keep-latest=0", "--allow-keep-none", "--min-age=none", "--dry-run", "--fs-root", b.Root}
	if action, reasons, _ := releaseReasons(t, args, "core/db/2.0.0/20240201000000"); action != "keep" || !strings.Contains(reasons, "loaded-service") {
		t.Errorf("core/db/2.0.0: action %q, reasons:\n%s\nwant keep as the loaded service's", action, reasons)
	}
}
