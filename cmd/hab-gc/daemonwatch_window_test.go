package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestDaemonWatchInstallWindow: the daemon's watch
// judges an install directory in the package's directories with the
// install_window setting, as `hab-gc watch` and the plan do: a leftover
// older than a 1s window (HAB_GC_INSTALL_WINDOW) is a killed install's,
// and the purge after an update goes ahead (it waited for the default
// hour).
func TestDaemonWatchInstallWindow(t *testing.T) {
	t.Parallel()
	exe := testtool.Executable(t)
	b := hostStore(t)
	b.Old("core/redis/6.2.5/20200101000000", "core/redis/6.2.6/20200201000000")
	b.Spec("redis", "core/redis")
	// A killed install's leftover (Habitat never removes one).
	if err := os.Mkdir(b.Path("hab/pkgs/core/redis/6.2.5/.hab-pkg-install-20200101000000AbCdEf"), 0o700); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // older than the window
	dir := testtool.TempDir(t)
	schedtest.Write(t, dir, "sup", schedtest.Watch(b.Root, `min_age = "none"`, `delay = "200ms"`))
	stderr := &testtool.SyncBuffer{}
	cmd := &exec.Cmd{Path: exe, Args: []string{"hab-gc", "daemon", "--schedules", dir, "--state", dir + "/state.json"},
		Stderr: stderr, Env: append(os.Environ(), "HAB_GC_RUNTIME_ROOTS=false", "HAB_GC_INSTALL_WINDOW=1s")}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, "watching", func() bool { return strings.Contains(stderr.String(), "watching the store") }, stderr)
	in := hostInstaller(b, 5)
	in.Publish(storetest.Archive{Ident: "core/redis/7.0.1/20260101000000"})
	if err := in.Install("core/redis/7.0.1/20260101000000"); err != nil {
		t.Fatal(err)
	}
	restartService(t, b.Root, "redis")
	// The fresh archive of 7.0.1 is installed now: nothing waits once
	// the window has passed.
	// After the update (the purge at start, if it came first, is not the one).
	waitFor(t, "purged", func() bool { return purgedLine.MatchString(stderr.String()) }, stderr)
	if err := testtool.Terminate(t, cmd); err != nil {
		t.Fatalf("daemon exited with %v; stderr:\n%s", err, stderr)
	}
	if _, err := os.Stat(b.PkgPath("core/redis/6.2.6/20200201000000")); err == nil {
		t.Errorf("core/redis/6.2.6 not purged; stderr:\n%s", stderr)
	}
}
