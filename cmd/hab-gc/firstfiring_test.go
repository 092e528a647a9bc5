package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestExportedTimerRunsFirstFiring: an exported timer's
// first firing runs its job. Export writes no state, so the service's
// daemon --once --job KEY is the first to see the job, at the due time
// that fired it: that due time runs, for an explicit cron and for
// @yearly-random (which would otherwise lose its first year).
func TestExportedTimerRunsFirstFiring(t *testing.T) {
	for _, spec := range []string{"0 3 * * *", "@yearly-random", "@daily-random"} {
		t.Run(spec, func(t *testing.T) {
			root := storetest.New(t).Root
			dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(root, spec)})
			state := filepath.Join(testtool.TempDir(t), "state.json")
			out := testtool.TempDir(t)
			const exported = "2026-06-01T00:00:00Z"
			if code, _, errs := hab(t, nil, "schedule", "export", "--schedules", dir, "--state", state, "--out", out, "--exe", "/usr/bin/hab-gc", "--now", exported); code != 0 {
				t.Fatalf("export: %d %s", code, errs)
			}
			code, stdout, errs := hab(t, nil, "schedule", "list", "--schedules", dir, "--state", state, "--now", exported, "--json")
			if code != 0 {
				t.Fatalf("list: %d %s", code, errs)
			}
			var list struct {
				Jobs []struct {
					Next string `json:"next"`
				} `json:"jobs"`
			}
			if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list.Jobs) != 1 {
				t.Fatalf("list: %v %s", err, stdout)
			}
			next, err := time.Parse(time.RFC3339, list.Jobs[0].Next)
			if err != nil {
				t.Fatal(err)
			}
			services, _ := filepath.Glob(filepath.Join(out, "*.service"))
			if len(services) != 1 {
				t.Fatalf("services: %v", services)
			}
			words := systemdWords(t, unitValue(t, services[0], "ExecStart"))
			// The timer fires at the due time; the service starts a few
			// seconds later.
			fired := next.Add(3 * time.Second).Format(time.RFC3339)
			code, _, errs = hab(t, nil, append(words[1:], "--now", fired)...)
			if code != 0 || !strings.Contains(errs, "job ran") {
				t.Fatalf("the timer's first firing (%s, due %s) ran nothing: exit %d\n%s", fired, next, code, errs)
			}
			// Fired again (a manual start) at once: nothing more.
			code, _, errs = hab(t, nil, append(words[1:], "--now", next.Add(time.Minute).Format(time.RFC3339))...)
			if code != 0 || strings.Contains(errs, "job ran") {
				t.Fatalf("a second start ran the due time again: exit %d\n%s", code, errs)
			}
		})
	}
}

// TestDaemonOnceReadOnlyState: daemon --once with its
// state on a read-only file system runs what is due (exactly when a
// prune may be needed most) and says that the run could not be recorded,
// instead of exiting 1 before running anything.
func TestDaemonOnceReadOnlyState(t *testing.T) {
	root := storetest.New(t).Root
	dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(root, "17 * * * *")})
	stateDir := testtool.TempDir(t)
	state := filepath.Join(stateDir, "state.json")
	if code, _, errs := hab(t, nil, "daemon", "--once", "--schedules", dir, "--state", state, "--now", "2026-06-01T00:00:00Z"); code != 0 {
		t.Fatalf("daemon: %d %s", code, errs)
	}
	ro := storetest.ReadOnly(t, stateDir)
	code, _, errs := hab(t, nil, "daemon", "--once", "--catch-up-spread", "0", "--schedules", dir, "--state", filepath.Join(ro, "state.json"), "--now", "2026-06-01T00:18:00Z")
	if code == 1 || !strings.Contains(errs, "job ran") || !strings.Contains(errs, "not recorded") && !strings.Contains(errs, "recording the run") {
		t.Fatalf("daemon --once on a read-only state: exit %d\n%s", code, errs)
	}
}

// TestPressureOnlyListedAndExported: a definition with
// only a [pressure] table shows in schedule list (text and JSON) and gets
// units from schedule export, whose timer looks every minute.
func TestPressureOnlyListedAndExported(t *testing.T) {
	root := storetest.New(t).Root
	dir := schedtest.Dir(t, map[string]string{"p": fmt.Sprintf("fs_root = %q\n[pressure]\nmin_free = \"1GiB\"\nkeep_latest = 1\n", root)})
	state := filepath.Join(testtool.TempDir(t), "state.json")
	code, out, errs := hab(t, nil, "schedule", "list", "--schedules", dir, "--state", state)
	if code != 0 || !strings.Contains(out, "pressure") || !strings.Contains(out, "p-") {
		t.Fatalf("list: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = hab(t, nil, "schedule", "list", "--schedules", dir, "--state", state, "--json")
	if code != 0 || !strings.Contains(out, `"type": "pressure"`) {
		t.Fatalf("list --json: exit %d\n%s%s", code, out, errs)
	}
	units := testtool.TempDir(t)
	if code, _, errs := hab(t, nil, "schedule", "export", "--schedules", dir, "--state", state, "--out", units, "--exe", "/usr/bin/hab-gc"); code != 0 {
		t.Fatalf("export: %d %s", code, errs)
	}
	timers, _ := filepath.Glob(filepath.Join(units, "hab-gc-pressure-p-*.timer"))
	if len(timers) != 1 {
		t.Fatalf("pressure timers: %v", timers)
	}
	if cal := unitValue(t, timers[0], "OnCalendar"); cal != "*-*-* *:*:00 UTC" {
		t.Fatalf("OnCalendar=%s", cal)
	}
}

// TestExportedTimerFirstStartLateRunsAtOnce: the first start of an
// exported job's service long after a due time (Persistent=true at boot,
// a manual systemctl start) runs that due time at once: it used to wait
// the catch-up delay (up to --catch-up-spread, 10m), holding the oneshot
// service, for a job that was new, not missed while hab-gc was down.
func TestExportedTimerFirstStartLateRunsAtOnce(t *testing.T) {
	for _, machine := range []string{"m1", "m2", "m3", "m4", "m5"} { // delays spread over 10m
		t.Run(machine, func(t *testing.T) {
			// A store each: the store's history witnesses a due time
			// run, whatever state file ran it.
			root := storetest.New(t).Root
			dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(root, "0 3 * * *")})
			out := testtool.TempDir(t)
			state := filepath.Join(testtool.TempDir(t), "state.json")
			env := map[string]string{"HAB_GC_MACHINE_ID": machine}
			if code, _, errs := hab(t, env, "schedule", "export", "--schedules", dir, "--state", state, "--out", out, "--exe", "/usr/bin/hab-gc", "--now", "2026-06-01T00:00:00Z"); code != 0 {
				t.Fatalf("export: %d %s", code, errs)
			}
			services, _ := filepath.Glob(filepath.Join(out, "*.service"))
			words := systemdWords(t, unitValue(t, services[0], "ExecStart"))
			type result struct {
				code int
				errs string
			}
			done := make(chan result, 1)
			go func() {
				code, _, errs := hab(t, env, append(words[1:], "--now", "2026-06-01T09:00:00Z")...) // 6h after 03:00
				done <- result{code, errs}
			}()
			select {
			case r := <-done:
				if r.code != 0 || !strings.Contains(r.errs, "job ran") {
					t.Fatalf("exit %d, want the missed first due time run:\n%s", r.code, r.errs)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the first start waited over a minute (the catch-up delay) instead of running")
			}
		})
	}
}
