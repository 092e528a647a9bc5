package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// hab runs the CLI in process with an environment of its own.
func hab(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code = execute(args, &out, &errb, lookup)
	return code, out.String(), errb.String()
}

// TestInspectingNeverWritesState: schedule list, next and export leave
// the state file as it is (bytes and modification time), whatever
// directory or clock they are given.
func TestInspectingNeverWritesState(t *testing.T) {
	root := storetest.New(t).Root
	a := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(root, "@hourly-random")})
	b := schedtest.Dir(t, map[string]string{"b": schedtest.Prune(root, "@daily-random")})
	state := filepath.Join(testtool.TempDir(t), "state.json")
	for _, now := range []string{"2026-06-01T00:00:00Z", "2026-06-01T03:00:00Z"} {
		if code, _, errs := hab(t, nil, "daemon", "--once", "--catch-up-spread", "0", "--schedules", a, "--state", state, "--now", now); code != 0 {
			t.Fatalf("daemon: %d %s", code, errs)
		}
	}
	before, _ := os.ReadFile(state)
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(state, old, old)
	for _, args := range [][]string{
		{"schedule", "list", "--schedules", b, "--state", state, "--now", "2027-01-01T00:00:00Z"},
		{"schedule", "list", "--schedules", a, "--state", state, "--now", "2027-01-01T00:00:00Z", "--json"},
		{"schedule", "export", "--schedules", b, "--state", state, "--out", testtool.TempDir(t), "--exe", "/bin/hab-gc"},
		{"schedule", "next", "@daily-random", "--store", root},
	} {
		if code, _, errs := hab(t, nil, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
		after, _ := os.ReadFile(state)
		fi, _ := os.Stat(state)
		if !bytes.Equal(before, after) || !fi.ModTime().Equal(old) {
			t.Fatalf("%v wrote the state file:\n%s\n->\n%s", args[:2], before, after)
		}
	}
}

// TestRejectedDefinitionExitCode: daemon --once and schedule list exit 2
// when a definition is rejected, naming file, line and column; the valid
// ones still run and show.
func TestRejectedDefinitionExitCode(t *testing.T) {
	root := storetest.New(t).Root
	dir := schedtest.Dir(t, map[string]string{
		"good": schedtest.Prune(root, "@hourly-random"),
		"bad":  fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@daily\"\nkeep_latest = -1\n", root),
	})
	state := filepath.Join(testtool.TempDir(t), "state.json")
	for _, args := range [][]string{
		{"daemon", "--once", "--schedules", dir, "--state", state, "--now", "2026-06-01T00:00:00Z"},
		{"schedule", "list", "--schedules", dir, "--state", state, "--now", "2026-06-01T00:00:00Z"},
	} {
		code, out, errs := hab(t, nil, args...)
		if code != exitUsage || !strings.Contains(errs, "bad.toml:4:1: field prune.keep_latest") {
			t.Errorf("%v: exit %d, stderr:\n%s", args[:2], code, errs)
		}
		if args[0] == "schedule" && !strings.Contains(out, "good") {
			t.Errorf("list does not show the valid job:\n%s", out)
		}
	}
}

// TestListWarnsUnwritableState: schedule list says when the daemon could
// not record runs (a read-only state directory; root included).
func TestListWarnsUnwritableState(t *testing.T) {
	root := storetest.New(t).Root
	dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(root, "@hourly-random")})
	stateDir := storetest.ReadOnly(t, testtool.TempDir(t))
	code, _, errs := hab(t, nil, "schedule", "list", "--schedules", dir, "--state", filepath.Join(stateDir, "state.json"))
	if code != 0 || !strings.Contains(errs, "cannot be written") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
}
