//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestExportIgnoresPlantedTempNames: whatever sits at the names an export
// used to write through (.hab-gc-export-UNIT: a hard link to a file
// elsewhere, a symlink to another file of the directory, a FIFO), the
// export neither blocks nor writes through it, and still writes its units.
func TestExportIgnoresPlantedTempNames(t *testing.T) {
	root := storetest.New(t).Root
	dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(root, "@daily-random"), "b": schedtest.Prune(root, "@weekly-random")})
	out := testtool.TempDir(t)
	args := []string{"schedule", "export", "--schedules", dir, "--state", filepath.Join(testtool.TempDir(t), "s.json"), "--out", out, "--exe", "/bin/hab-gc"}
	if code, _, errs := hab(t, nil, args...); code != 0 {
		t.Fatal(errs)
	}
	units, _ := filepath.Glob(filepath.Join(out, "hab-gc-*"))
	if len(units) != 4 {
		t.Fatalf("units: %v", units)
	}
	for _, u := range units {
		os.Remove(u)
	}
	outside := filepath.Join(testtool.TempDir(t), "precious")
	noErr(t, os.WriteFile(outside, []byte("precious"), 0o644))
	victim := filepath.Join(out, "someone-else.service")
	noErr(t, os.WriteFile(victim, []byte("mine"), 0o644))
	tmp := func(i int) string { return filepath.Join(out, ".hab-gc-export-"+filepath.Base(units[i])) }
	noErr(t, os.Link(outside, tmp(0)))
	noErr(t, os.Symlink("someone-else.service", tmp(1)))
	noErr(t, unix.Mkfifo(tmp(2), 0o644))
	done := make(chan struct{})
	var code int
	var errs string
	go func() { code, _, errs = hab(t, nil, args...); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("export still running after 10s: blocked on a FIFO at a temporary name")
	}
	if code != 0 {
		t.Fatalf("export: %d %s", code, errs)
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Errorf("a file outside the directory was written through a hard link: %q", b)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("another file of the directory was written through a symlink: %q", b)
	}
	for _, u := range units {
		b, err := os.ReadFile(u)
		if err != nil || !strings.HasPrefix(string(b), "# Written by hab-gc schedule export") {
			t.Errorf("%s not written: %v", u, err)
		}
	}
}
