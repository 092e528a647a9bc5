//go:build windows

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestScheduleListStateWindows: schedule list on Windows checks that the
// daemon could write its state file, warning only when it could not
// (before, every list warned: the check was Unix's alone). Under Wine
// it passes, but the package's test binary then exits 1: testscript.Main
// removes its directory of commands with os.RemoveAll, which Wine 8.0
// cannot do (POSIX-semantics deletion), so .ci/run runs
// internal/winfs's TestWritable there instead.
func TestScheduleListStateWindows(t *testing.T) {
	root := storetest.New(t).Root
	dir := testtool.TempDir(t)
	noErr(t, os.WriteFile(filepath.Join(dir, "a.toml"), []byte(schedtest.Prune(root, "@daily")), 0o644))
	state := filepath.Join(testtool.TempDir(t), "state.json")
	const warning = "the state file cannot be written"
	code, _, errs := hab(t, nil, "schedule", "list", "--schedules", dir, "--state", state)
	if code != 0 || strings.Contains(errs, warning) {
		t.Fatalf("list with a writable state: exit %d, stderr %q", code, errs)
	}
	noErr(t, os.WriteFile(state, []byte(`{"version": 1}`), 0o644))
	noErr(t, os.Chmod(state, 0o444))
	t.Cleanup(func() { os.Chmod(state, 0o644) })
	code, _, errs = hab(t, nil, "schedule", "list", "--schedules", dir, "--state", state)
	if !strings.Contains(errs, warning) || !strings.Contains(errs, "state.json") {
		t.Errorf("list with a read-only state file: exit %d, stderr %q, want the warning", code, errs)
	}
}
