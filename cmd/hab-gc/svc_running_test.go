//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// A static site served by core/nginx's binary: no process of the service
// maps, opens or executes a file of core/mysite, so only what the
// Supervisor leaves on disk tells which release it runs.
const (
	svcNginx   = "core/nginx/1.25.4/20240101000000"
	svcSite102 = "core/mysite/1.0.2/20240201000000"
	svcSite103 = "core/mysite/1.0.3/20240301000000"
	svcSite104 = "core/mysite/1.0.4/20240401000000"
)

// siteStore is a store holding core/nginx and the given releases of
// core/mysite (each needing core/nginx), installed long ago, and the spec
// `hab svc load core/mysite` writes (storetest.Builder.Spec:
// update_strategy "none", desired_state "up").
func siteStore(t *testing.T, sites ...string) *storetest.Builder {
	t.Helper()
	b := hostStore(t)
	b.Add(storetest.Release{Ident: svcNginx, ModTime: storetest.OldTime()})
	for _, s := range sites {
		b.Add(storetest.Release{Ident: s, Deps: []string{svcNginx}, ModTime: storetest.OldTime(),
			Files: map[string]string{"www/index.html": s + "\n"}})
	}
	proctest.CopySleep(t, b.PkgPath(svcNginx)+"/bin/nginx")
	return b.Spec("mysite", "core/mysite")
}

// startSite starts the service's process, core/nginx's binary (the run
// hook's exec), and writes its PID file as the Supervisor does once the
// launcher spawned it (storetest.WritePIDFile: supervisor.rs
// create_pidfile). It returns the process and the PID file's path.
func startSite(t *testing.T, b *storetest.Builder) (*proctest.Proc, string) {
	t.Helper()
	p := proctest.Start(t, proctest.Exec, b.PkgPath(svcNginx)+"/bin/nginx")
	pidFile, err := storetest.WritePIDFile(b.Root, "mysite", p.PID())
	noErr(t, err)
	return p, pidFile
}

// releaseReasons runs hab-gc with args plus --json and returns ident's
// action and its reasons' texts, one a line, and stdout and stderr.
func releaseReasons(t *testing.T, args []string, ident string) (action, reasons, out string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- execute(append(args, "--json"), &stdout, &stderr, noEnv) }()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("hab-gc %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("hab-gc %s: still running after 20s", strings.Join(args, " "))
	}
	var rep struct {
		Releases []struct {
			Ident   string       `json:"ident"`
			Action  string       `json:"action"`
			Reasons []reasonJSON `json:"reasons"`
		} `json:"releases"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("hab-gc %s: bad JSON: %v\n%s", strings.Join(args, " "), err, stdout.String())
	}
	for _, r := range rep.Releases {
		if r.Ident != ident {
			continue
		}
		var texts []string
		for _, rr := range r.Reasons {
			texts = append(texts, rr.Code+": "+rr.Text)
		}
		return r.Action, strings.Join(texts, "\n"), stdout.String() + stderr.String()
	}
	return "", "", stdout.String() + stderr.String()
}

// TestRunKeepsTheReleaseTheSupervisorStarted: the service was started on
// 1.0.3 (its PID file names a live process started before 1.0.4 was
// installed, as `hab pkg install` installs it: storetest.Installer), and
// with update_strategy "none" the Supervisor keeps running 1.0.3 until it
// restarts the service; it purges only then (manager.rs
// add_service_rsw_mlw_rhw_msr calls maybe_uninstall_old_packages when it
// starts a service; restart_services_rsw_mlr_rhw_msw restarts one only on
// an update the updater found). run --keep-latest=1 must keep 1.0.3,
// saying the service's PID file shows it runs it, and why must not say
// the service runs 1.0.4.
func TestRunKeepsTheReleaseTheSupervisorStarted(t *testing.T) {
	t.Parallel()
	b := siteStore(t, svcSite103)
	startSite(t, b)
	in := hostInstaller(b, 45)
	in.Publish(storetest.Archive{Ident: svcSite104, Deps: []string{svcNginx}})
	noErr(t, in.Install(svcSite104))

	args := []string{"run", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root}
	action, reasons, _ := releaseReasons(t, args, svcSite103)
	if _, err := os.Stat(b.PkgPath(svcSite103)); err != nil {
		t.Fatalf("run removed %s, which the service runs: %v\nreasons it gave: %s", svcSite103, err, reasons)
	}
	if action != "keep" || !strings.Contains(reasons, "PID") || !strings.Contains(reasons, "mysite") {
		t.Errorf("%s: action %q, reasons:\n%s\nwant keep, saying the PID file of service mysite shows it runs it", svcSite103, action, reasons)
	}
	var stdout, stderr bytes.Buffer
	if code := execute([]string{"why", svcSite104, "--keep-latest=1", "--min-age=none", "--fs-root", b.Root}, &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("why: exit %d: %s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "loaded service mysite runs it") {
		t.Errorf("why says the service runs %s, which it has not started:\n%s", svcSite104, stdout.String())
	}
}

// TestRunWithoutPIDFileKeepsNewest: with no PID file the service is not
// running, and the newest N releases its spec allows are kept, as before.
func TestRunWithoutPIDFileKeepsNewest(t *testing.T) {
	t.Parallel()
	b := siteStore(t, svcSite103, svcSite104)
	if _, err := storetest.SvcDir(b.Root, "mysite"); err != nil { // left by an earlier start
		t.Fatal(err)
	}
	args := []string{"run", "--keep-latest=1", "--min-age=none", "--dry-run", "--fs-root", b.Root}
	if action, reasons, _ := releaseReasons(t, args, svcSite103); action != "remove" {
		t.Errorf("%s: action %q (%s), want remove", svcSite103, action, reasons)
	}
	if action, reasons, _ := releaseReasons(t, args, svcSite104); action != "keep" || !strings.Contains(reasons, "loaded-service") {
		t.Errorf("%s: action %q, reasons:\n%s\nwant keep as the loaded service's", svcSite104, action, reasons)
	}
}

// TestRunBadPIDFileKeepsEveryReleaseTheSpecAllows: a PID file that cannot
// be trusted (names no live process, cannot be read, is a FIFO, a symlink,
// or far larger than a PID) says nothing of which release runs: every
// release the spec allows is kept, and a line names the file. hab-gc never
// blocks on it nor follows it.
func TestRunBadPIDFileKeepsEveryReleaseTheSpecAllows(t *testing.T) {
	t.Parallel()
	gone := proctest.Start(t, proctest.Exec, proctest.Sleep(t))
	gonePID := gone.PID()
	gone.Stop()
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, pidFile string, live int)
	}{
		{"names a process that exited", func(t *testing.T, p string, _ int) { writeFile(t, p, strconv.Itoa(gonePID)) }},
		{"names PID 0", func(t *testing.T, p string, _ int) { writeFile(t, p, "0") }},
		{"names PID -1", func(t *testing.T, p string, _ int) { writeFile(t, p, "-1") }},
		{"holds no number", func(t *testing.T, p string, _ int) { writeFile(t, p, "nginx\n") }},
		{"is empty", func(t *testing.T, p string, _ int) { writeFile(t, p, "") }},
		{"cannot be read (a directory)", func(t *testing.T, p string, _ int) { noErr(t, os.Mkdir(p, 0o755)) }},
		{"is a FIFO", func(t *testing.T, p string, _ int) {
			if err := unix.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}},
		{"is a symlink to a file naming the live process", func(t *testing.T, p string, live int) {
			elsewhere := filepath.Join(testtool.TempDir(t), "PID")
			writeFile(t, elsewhere, strconv.Itoa(live))
			noErr(t, os.Symlink(elsewhere, p))
		}},
		{"is oversized (the live PID and a MiB of blanks)", func(t *testing.T, p string, live int) {
			writeFile(t, p, strconv.Itoa(live)+strings.Repeat(" ", 1<<20))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := siteStore(t, svcSite102, svcSite103, svcSite104)
			p, pidFile := startSite(t, b)
			noErr(t, os.Remove(pidFile))
			tc.write(t, pidFile, p.PID())
			args := []string{"run", "--keep-latest=1", "--min-age=none", "--dry-run", "--fs-root", b.Root}
			var out string
			for _, id := range []string{svcSite102, svcSite103, svcSite104} {
				var action, reasons string
				action, reasons, out = releaseReasons(t, args, id)
				if action != "keep" {
					t.Errorf("%s: action %q (%s), want keep: the PID file says nothing of which release runs", id, action, reasons)
				}
			}
			if !strings.Contains(out, filepath.Join("hab", "svc", "mysite", "PID")) {
				t.Errorf("no line names the PID file; stderr and report:\n%s", out)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	noErr(t, os.WriteFile(path, []byte(content), 0o644))
}
