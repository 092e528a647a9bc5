package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// runJSON runs hab-gc with args plus --json and decodes the report.
func runJSON(t *testing.T, env map[string]string, args ...string) (report struct {
	Releases []struct {
		Ident   string       `json:"ident"`
		Action  string       `json:"action"`
		Reasons []reasonJSON `json:"reasons"`
	} `json:"releases"`
	RootSources []struct {
		Source string         `json:"source"`
		Counts map[string]int `json:"counts"`
	} `json:"root_sources"`
}, code int, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(append(args, "--json"), &out, &errb, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &report); err != nil {
			t.Fatalf("hab-gc %s: bad JSON: %v\n%s", strings.Join(args, " "), err, out.String())
		}
	}
	return report, code, errb.String()
}

// reasonOf returns the reason with code for ident in a report ("" when
// the release is not listed or has no such reason) and the action.
func reasonOf(t *testing.T, args []string, ident, code string) (action, text string) {
	t.Helper()
	rep, exit, stderr := runJSON(t, nil, args...)
	if exit != 0 {
		t.Fatalf("hab-gc %s: exit %d: %s", strings.Join(args, " "), exit, stderr)
	}
	for _, r := range rep.Releases {
		if r.Ident != ident {
			continue
		}
		for _, rr := range r.Reasons {
			if rr.Code == code {
				return r.Action, rr.Text
			}
		}
		return r.Action, ""
	}
	return "", ""
}

// TestRunKeepsReleasesInUse: a real process uses
// a file of an old release in each way a program can; run --keep-latest=1
// keeps that release with in-use, and once the process has exited the next
// run removes it.
func TestRunKeepsReleasesInUse(t *testing.T) {
	const cur = "core/app/2.0.0/20210101000000"
	cases := []struct {
		name string
		how  proctest.How
		file string // inside the old release
		want string // in the reason's text
	}{
		{"executable", proctest.Exec, "bin/app", "executes bin/app of it"},
		{"open file", proctest.Open, "share/data.txt", "has share/data.txt open"},
		{"mapped library", proctest.Map, "lib/libapp.so", "has lib/libapp.so mapped"},
		{"environment", proctest.Env, "bin/app", "in its environment (PATH)"},
		{"working directory", proctest.Cwd, "share/data.txt", "working directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := storetest.New(t)
			b.Add(storetest.Release{Ident: old, Files: map[string]string{"share/data.txt": "data\n", "lib/libapp.so": "not really a library\n"}})
			b.Pkg(cur)
			proctest.CopySleep(t, b.PkgPath(old)+"/bin/app")
			p := proctest.Start(t, tc.how, b.PkgPath(old)+"/"+tc.file)

			args := []string{"run", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root}
			action, text := reasonOf(t, args, old, "in-use")
			if action != "keep" || !strings.Contains(text, tc.want) || !strings.Contains(text, fmt.Sprintf("process %d ", p.PID())) {
				t.Fatalf("%s with a process using it (%s): action %q, in-use reason %q; want keep with %q", old, tc.how, action, text, tc.want)
			}
			if _, err := os.Stat(b.PkgPath(old)); err != nil {
				t.Fatalf("release in use was removed: %v", err)
			}

			p.Stop()
			if action, _ := reasonOf(t, args, old, "in-use"); action != "remove" {
				t.Fatalf("after the process exited: action %q, want remove", action)
			}
			if _, err := os.Stat(b.PkgPath(old)); !os.IsNotExist(err) {
				t.Fatalf("release no longer in use still there after run: %v", err)
			}
		})
	}
}

// TestRunKeepsRunningReleaseOfService: the spec says
// core/redis, the service still runs 6.2.6 although 7.0.0 was installed
// since (update strategy none); keep-latest=1 must keep 6.2.6.
func TestRunKeepsRunningReleaseOfService(t *testing.T) {
	const running, newer = "core/redis/6.2.6/20210603120000", "core/redis/7.0.0/20220601120000"
	b := storetest.New(t)
	b.Pkg(running).Pkg(newer).Spec("redis", "core/redis")
	proctest.CopySleep(t, b.PkgPath(running)+"/bin/redis-server")
	p := proctest.Start(t, proctest.Exec, b.PkgPath(running)+"/bin/redis-server")

	args := []string{"run", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root}
	action, text := reasonOf(t, args, running, "in-use")
	want := fmt.Sprintf("process %d (redis-server) executes bin/redis-server of it", p.PID())
	if action != "keep" || !strings.Contains(text, want) {
		t.Fatalf("%s: action %q, in-use reason %q; want keep with %q", running, action, text, want)
	}
	if _, err := os.Stat(b.PkgPath(running)); err != nil {
		t.Fatalf("the running release was removed: %v", err)
	}
}

const old = "core/app/1.0.0/20200101000000"

// runningOld makes a store with two releases of core/app and starts a
// process from the old one's bin/app.
func runningOld(t *testing.T) (*storetest.Builder, *proctest.Proc) {
	t.Helper()
	b := storetest.New(t)
	b.Pkg(old).Pkg("core/app/2.0.0/20210101000000")
	proctest.CopySleep(t, b.PkgPath(old)+"/bin/app")
	return b, proctest.Start(t, proctest.Exec, b.PkgPath(old)+"/bin/app")
}

// TestRuntimeRootsSettings: the summary line (--verbose), why, and turning runtime
// roots off (flag, environment).
func TestRuntimeRootsSettings(t *testing.T) {
	b, p := runningOld(t)
	dry := []string{"run", "--keep-latest=1", "--min-age=none", "--dry-run", "--fs-root", b.Root}

	var out, errb bytes.Buffer
	if code := execute(append(dry, "--verbose"), &out, &errb, func(string) (string, bool) { return "", false }); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !regexp.MustCompile(`hab-gc: runtime roots: \d+ of \d+ processes inspected.*; 1 release\(s\) in use`).MatchString(errb.String()) {
		t.Errorf("no summary line on stderr:\n%s", errb.String())
	}
	out.Reset()
	if code := execute([]string{"why", old, "--keep-latest=1", "--min-age=none", "--fs-root", b.Root}, &out, &errb, func(string) (string, bool) { return "", false }); code != 0 {
		t.Fatalf("why: exit %d: %s", code, errb.String())
	}
	if want := fmt.Sprintf("process %d (app) executes bin/app of it", p.PID()); !strings.Contains(out.String(), want) {
		t.Errorf("why says:\n%s\nwant %q", out.String(), want)
	}
	rep, _, _ := runJSON(t, nil, dry...)
	// The other source is the Supervisor's gateway, asked by default.
	if len(rep.RootSources) != 2 || rep.RootSources[0].Source != "processes" || rep.RootSources[0].Counts["inspected"] == 0 {
		t.Errorf("JSON root_sources = %+v", rep.RootSources)
	}

	for _, off := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flag", nil, []string{"--runtime-roots=false"}},
		{"environment", map[string]string{"HAB_GC_RUNTIME_ROOTS": "false"}, nil},
	} {
		setenv(t, off.env)
		rep, code, stderr := runJSON(t, off.env, append(dry, off.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", off.name, code, stderr)
		}
		if len(rep.RootSources) != 1 || rep.RootSources[0].Source != "supervisor" || strings.Contains(stderr, "runtime roots") {
			t.Errorf("runtime roots off by %s, still read: %+v %s", off.name, rep.RootSources, stderr)
		}
		for _, r := range rep.Releases {
			if r.Ident == old && r.Action != "remove" {
				t.Errorf("runtime roots off by %s: %s is %s", off.name, old, r.Action)
			}
		}
	}
	t.Setenv("HAB_GC_RUNTIME_ROOTS", "maybe")
	if _, code, stderr := runJSON(t, nil, dry...); code != exitUsage || !strings.Contains(stderr, "runtime-roots") {
		t.Errorf("a bad HAB_GC_RUNTIME_ROOTS: exit %d, %s", code, stderr)
	}
}

// TestRunAsksSupervisor: with --sup-gateway, what the Supervisor runs is
// kept (loaded-service); a gateway that fails makes run refuse (exit 3)
// and remove nothing.
func TestRunAsksSupervisor(t *testing.T) {
	const running, newer = "core/redis/6.2.6/20210603120000", "core/redis/7.0.0/20220601120000"
	answer := `[{"service_group": "redis.default", "pkg": {"ident": "` + running + `"}}]`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") != "Bearer tok":
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		case r.URL.Path == "/services":
			w.Write([]byte(answer))
		default:
			w.Write([]byte("<html>not the gateway</html>"))
		}
	}))
	defer srv.Close()
	token := map[string]string{"HAB_SUP_GATEWAY_AUTH_TOKEN": "tok"}

	mk := func(t *testing.T) *storetest.Builder {
		b := hostStore(t)
		b.Pkg(running).Pkg(newer).Spec("redis", "core/redis")
		return b
	}
	t.Run("kept", func(t *testing.T) {
		b := mk(t)
		args := []string{"run", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--fs-root", b.Root, "--sup-gateway", srv.URL}
		rep, code, stderr := runJSON(t, token, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, r := range rep.Releases {
			if r.Ident == running && (r.Action != "keep" || r.Reasons[0].Code != "loaded-service" || !strings.Contains(r.Reasons[0].Text, "the Supervisor runs it for loaded service redis.default")) {
				t.Fatalf("%s: %+v", running, r)
			}
		}
		if _, err := os.Stat(b.PkgPath(running)); err != nil {
			t.Fatal(err)
		}
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, tc := range []struct {
		name string
		url  string
		env  map[string]string
		says string
	}{
		{"unreachable", closed.URL, token, "connect"},
		{"no token", srv.URL, nil, "401"},
		{"garbage", srv.URL + "/other", token, "not a JSON list"},
		{"from the environment", "", map[string]string{"HAB_SUP_GATEWAY_AUTH_TOKEN": "tok", "HAB_GC_SUP_GATEWAY": closed.URL}, "connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setenv(t, map[string]string{"HAB_GC_SUP_GATEWAY": tc.env["HAB_GC_SUP_GATEWAY"]})
			b := mk(t)
			args := []string{"run", "--keep-latest=1", "--min-age=none", "--fs-root", b.Root}
			if tc.url != "" {
				args = append(args, "--sup-gateway", tc.url)
			}
			var out, errb bytes.Buffer
			code := execute(args, &out, &errb, func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if code != exitRefused || !strings.Contains(errb.String(), tc.says) || !strings.Contains(errb.String(), "refusing") {
				t.Fatalf("exit %d, stderr %q; want %d saying %q", code, errb.String(), exitRefused, tc.says)
			}
			if _, err := os.Stat(b.PkgPath(running)); err != nil {
				t.Fatalf("removed although the gateway failed: %v", err)
			}
		})
	}
	if _, code, stderr := runJSON(t, nil, "run", "--keep-latest=1", "--sup-gateway", "ftp://x"); code != exitUsage || !strings.Contains(stderr, "sup-gateway") {
		t.Errorf("a bad gateway URL: exit %d, %s", code, stderr)
	}
}

// TestScheduledPruneKeepsReleaseInUse: a scheduled prune is planned as run
// plans, runtime roots included.
func TestScheduledPruneKeepsReleaseInUse(t *testing.T) {
	t.Parallel()
	b, p := runningOld(t)
	dir := schedtest.Dir(t, map[string]string{"p": schedtest.Prune(b.Root, "@daily")})
	state := filepath.Join(testtool.TempDir(t), "state.json")
	daemon := func(now string) {
		t.Helper()
		if code, _, errs := hab(t, nil, "daemon", "--once", "--schedules", dir, "--state", state, "--now", now); code != 0 {
			t.Fatalf("daemon --once at %s: exit %d: %s", now, code, errs)
		}
	}
	daemon("2026-06-01T00:00:00Z")
	daemon("2026-06-02T00:00:00Z")
	if _, err := os.Stat(b.PkgPath(old)); err != nil {
		t.Fatalf("scheduled prune removed a release in use: %v", err)
	}
	p.Stop()
	daemon("2026-06-03T00:00:00Z")
	if _, err := os.Stat(b.PkgPath(old)); !os.IsNotExist(err) {
		t.Fatalf("scheduled prune kept a release no longer in use: %v", err)
	}
}
