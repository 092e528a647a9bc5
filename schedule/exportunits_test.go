package schedule_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// exportJob is a job with a resolved cron, as a loaded scheduler holds.
func exportJob(t *testing.T, key string) schedule.Job {
	t.Helper()
	sp, err := schedule.ParseSpec("@daily")
	if err != nil {
		t.Fatal(err)
	}
	return schedule.Job{Key: key, Type: schedule.Check, Store: "/hab/pkgs", FSRoot: "/", Spec: sp, Cron: "0 0 * * *", Owner: "o"}
}

// TestWriteUnitsContentAndStale: each job's units are written with
// systemdUnits' content, mode 0644; a later export removes the units of a
// job that is gone, and only files that carry UnitMarker: a hab-gc-*.timer
// without it, a file of another name with it and a symlink to a marked file
// are left alone.
func TestWriteUnitsContentAndStale(t *testing.T) {
	out := filepath.Join(testtool.TempDir(t), "units")
	inv := schedule.Invocation{Exe: "/usr/bin/hab-gc", Args: []string{"daemon", "--once"}}
	old, cur := exportJob(t, "old-0001"), exportJob(t, "cur-0002")
	written, _, err := schedule.WriteUnits(out, []schedule.Job{old, cur}, inv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 4 {
		t.Fatalf("written %v, want a timer and a service for each of 2 jobs", written)
	}
	units, err := schedule.SystemdUnits(cur, inv, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		p := filepath.Join(out, u.Name)
		if !slices.Contains(written, p) {
			t.Errorf("%s not in written %v", p, written)
		}
		b, err := os.ReadFile(p)
		if err != nil || string(b) != u.Content {
			t.Errorf("%s: %q, %v; want SystemdUnits' content", u.Name, b, err)
		}
		if fi, err := os.Stat(p); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 { // Windows has no mode bits
			t.Errorf("%s: mode %v, %v; want 0644", u.Name, fi.Mode(), err)
		}
	}
	marked := schedule.UnitMarker + "\n[Unit]\n"
	mine := filepath.Join(out, "hab-gc-check-mine.timer")
	other := filepath.Join(out, "other.timer")
	outside := filepath.Join(testtool.TempDir(t), "outside.service")
	for p, content := range map[string]string{mine: "[Timer]\n", other: marked, outside: marked} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	left := []string{mine, other, outside}
	if link := filepath.Join(out, "hab-gc-check-link.service"); testtool.Symlink(t, outside, link) {
		left = append(left, link)
	}
	if _, _, err := schedule.WriteUnits(out, []schedule.Job{cur}, inv, nil); err != nil {
		t.Fatal(err)
	}
	oldUnits, _ := schedule.SystemdUnits(old, inv, nil)
	for _, u := range oldUnits {
		if _, err := os.Lstat(filepath.Join(out, u.Name)); !os.IsNotExist(err) {
			t.Errorf("%s of the job gone: %v, want it removed", u.Name, err)
		}
	}
	for _, p := range left {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v, want it left alone", p, err)
		}
	}
}

// TestWriteUnitsReplacesPlantedSymlink: a symlink planted at a unit's name
// is replaced by the unit, and the file it pointed to is not written.
func TestWriteUnitsReplacesPlantedSymlink(t *testing.T) {
	testtool.NeedSymlinks(t)
	out := testtool.TempDir(t)
	j := exportJob(t, "k-0003")
	inv := schedule.Invocation{Exe: "/usr/bin/hab-gc"}
	units, err := schedule.SystemdUnits(j, inv, nil)
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(testtool.TempDir(t), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(out, units[0].Name)
	if err := os.Symlink(victim, name); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if _, _, err := schedule.WriteUnits(out, []schedule.Job{j}, inv, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%s: %v, %v; want the unit as a regular file", name, fi, err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".hab-gc-export-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestExportJobs: an export holds the scheduled jobs and the pressure
// jobs, these with the cron PressureExportCron.
func TestExportJobs(t *testing.T) {
	dir := testtool.TempDir(t)
	root := hostStore(t).Root
	defs := map[string]string{
		"p": fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@daily\"\nkeep_latest = 2\n", root),
		"f": fmt.Sprintf("fs_root = %q\n[pressure]\nmin_free = \"1GiB\"\nkeep_latest = 1\n", root),
	}
	for name, src := range defs {
		if err := os.WriteFile(filepath.Join(dir, name+".toml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &schedule.Scheduler{Dir: dir, StatePath: filepath.Join(testtool.TempDir(t), "state.json"), ReadOnly: true}
	if probs, err := s.Reload(); err != nil || len(probs) > 0 {
		t.Fatal(probs, err)
	}
	jobs := s.ExportJobs()
	if len(jobs) != 2 || jobs[0].Type != schedule.Prune || jobs[1].Type != schedule.Pressure {
		t.Fatalf("export jobs %+v, want the prune then the pressure job", jobs)
	}
	if jobs[0].Cron == schedule.PressureExportCron || jobs[1].Cron != schedule.PressureExportCron {
		t.Errorf("crons %q, %q; want the prune's own and %q", jobs[0].Cron, jobs[1].Cron, schedule.PressureExportCron)
	}
	if p := s.PressureJobs(); p[0].Cron == schedule.PressureExportCron {
		t.Errorf("ExportJobs changed the scheduler's pressure job")
	}
}

// TestIsExportedUnit: a regular file that starts with UnitMarker is an
// exported unit; a file without it, a shorter one, a directory and a
// symlink to a marked file are not.
func TestIsExportedUnit(t *testing.T) {
	dir := testtool.TempDir(t)
	files := map[string]string{
		"marked.timer": schedule.UnitMarker + "\n[Timer]\n",
		"plain.timer":  "[Timer]\n",
		"short.timer":  schedule.UnitMarker[:10],
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.timer"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"marked.timer": true, "plain.timer": false, "short.timer": false,
		"dir.timer": false, "missing.timer": false}
	if testtool.Symlink(t, "marked.timer", filepath.Join(dir, "link.timer")) {
		want["link.timer"] = false
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for name, want := range want {
		if got := schedule.IsExportedUnit(root, name); got != want {
			t.Errorf("IsExportedUnit(%s) = %v, want %v", name, got, want)
		}
	}
}
