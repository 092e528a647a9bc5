package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestFleetSpread: the randomized time of one job on one store path
// depends on the machine: 1,000 machine ids use at least 650 distinct
// minutes of the day for @daily-random, and one machine always gets the
// same time.
func TestFleetSpread(t *testing.T) {
	t.Parallel()
	minutes := map[string]bool{}
	next := func(env map[string]string, store string) string {
		code, out, errs := hab(t, env, "schedule", "next", "@daily-random", "--store", store, "--keep-latest", "3")
		if code != 0 {
			t.Fatalf("%d %s", code, errs)
		}
		return strings.TrimSpace(out)
	}
	for i := 0; i < 1000; i++ {
		f := strings.Fields(next(map[string]string{"HAB_GC_MACHINE_ID": fmt.Sprintf("%032x", i*7919)}, "/hab/pkgs"))
		minutes[f[1]+":"+f[0]] = true
	}
	if len(minutes) < 650 {
		t.Fatalf("1,000 machines use %d distinct minutes of the day, want at least 650", len(minutes))
	}
	// Stable, and read from the store's FS_ROOT/etc/machine-id when not
	// overridden.
	root := testtool.TempDir(t)
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc", "machine-id"), []byte("0123456789abcdef0123456789abcdef\n"), 0o444)
	a := next(nil, root)
	if b := next(map[string]string{"HAB_GC_MACHINE_ID": "0123456789abcdef0123456789abcdef"}, root); a != b {
		t.Fatalf("machine-id file gives %q, the same id from the environment %q", a, b)
	}
	if b := next(nil, root); a != b {
		t.Fatalf("not stable: %q then %q", a, b)
	}
}

// TestScheduleNextCount: schedule next prints the expression, then the
// next --count run times in the zone.
func TestScheduleNextCount(t *testing.T) {
	code, out, errs := hab(t, nil, "schedule", "next", "0 3 * * *", "--count", "3", "--timezone", "Europe/Berlin", "--now", "2026-06-01T00:00:00Z")
	want := "0 3 * * *\n2026-06-01T03:00:00+02:00\n2026-06-02T03:00:00+02:00\n2026-06-03T03:00:00+02:00\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, stdout:\n%s\nwant:\n%s%s", code, out, want, errs)
	}
}
