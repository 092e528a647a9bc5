package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestScheduleUsesDefinitionsFSRoot: schedule list and
// the daemon take a job's etc/machine-id and default state file from the
// FS root its definition names, --fs-root or not: list showed times (40
// 12 * * 1) the daemon did not use (32 16 * * 1), and daemon --schedules
// D exited 2 ("no usable package store: /hab/pkgs") although every
// definition names its fs_root.
func TestScheduleUsesDefinitionsFSRoot(t *testing.T) {
	root := storetest.New(t).Root
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "machine-id"), []byte("0123456789abcdef0123456789abcdef\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(root, "@weekly-random")})
	now := "2026-06-01T00:00:00Z"
	_, with, errs := hab(t, nil, "schedule", "list", "--schedules", d, "--fs-root", root, "--now", now)
	code, without, errs2 := hab(t, nil, "schedule", "list", "--schedules", d, "--now", now)
	if code != 0 || with != without {
		t.Fatalf("schedule list without --fs-root (exit %d) shows\n%s%s\nwith --fs-root %s:\n%s%s", code, without, errs2, root, with, errs)
	}
	if code, _, errs := hab(t, nil, "daemon", "--once", "--catch-up-spread", "0", "--schedules", d, "--now", now); code != 0 {
		t.Fatalf("daemon --once without --fs-root: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "hab", "sup", "default", "hab-gc", "schedule-state.json")); err != nil {
		t.Fatalf("the daemon's state is not beside the definitions' store: %v", err)
	}
}
