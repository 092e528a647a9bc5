package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// unitValue returns the values of the KEY= lines of a unit file, one per
// line.
func unitValue(t *testing.T, file, key string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			vals = append(vals, v)
		}
	}
	if vals == nil {
		t.Fatalf("%s has no %s=:\n%s", file, key, b)
	}
	return strings.Join(vals, "\n")
}

// systemdWords splits a command line as systemd does: words separated by
// blanks, double-quoted words with C escapes, %% for % and $$ for $.
func systemdWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	for i := 0; i < len(line); {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i == len(line) {
			break
		}
		var w strings.Builder
		if line[i] == '"' {
			i++
			for i < len(line) && line[i] != '"' {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				w.WriteByte(line[i])
				i++
			}
			i++
		} else {
			for i < len(line) && line[i] != ' ' {
				w.WriteByte(line[i])
				i++
			}
		}
		s := w.String()
		if len(words) == 0 { // the executable: no variables expanded
			words = append(words, strings.ReplaceAll(s, "%%", "%"))
			continue
		}
		if strings.Contains(strings.ReplaceAll(s, "%%", ""), "%") || strings.Contains(strings.ReplaceAll(s, "$$", ""), "$") {
			t.Fatalf("unescaped %% or $ in %q", s)
		}
		words = append(words, strings.ReplaceAll(strings.ReplaceAll(s, "%%", "%"), "$$", "$"))
	}
	return words
}

// TestExportedServiceRunsLikeTheDaemon: the exported ExecStart carries the
// time zone and the daemon's settings, quoted and escaped as systemd reads
// them; run at the timer's firing times, it runs the job each time.
func TestExportedServiceRunsLikeTheDaemon(t *testing.T) {
	base := filepath.Join(testtool.TempDir(t), "a dir with 100% $HOME")
	b := storetest.At(t, filepath.Join(base, "fs"))
	root := b.Root
	dir := filepath.Join(base, "sched ules")
	schedtest.Write(t, dir, "p", schedtest.Prune(root, "0 3 * * *"))
	state := filepath.Join(base, "state.json")
	out := filepath.Join(base, "units")
	env := map[string]string{"HAB_BINLINK_DIR": "/opt/my bin", "HAB_GC_LOCK_TIMEOUT": "7s"}
	code, _, errs := hab(t, env, "schedule", "export", "--schedules", dir, "--state", state, "--out", out,
		"--exe", "/usr/bin/hab-gc", "--timezone", "Europe/Berlin", "--now", "2026-06-01T00:00:00Z")
	if code != 0 {
		t.Fatalf("export: %d %s", code, errs)
	}
	services, _ := filepath.Glob(filepath.Join(out, "*.service"))
	if len(services) != 1 {
		t.Fatalf("services: %v", services)
	}
	words := systemdWords(t, unitValue(t, services[0], "ExecStart"))
	joined := strings.Join(words, "\x00")
	for _, want := range []string{"--timezone\x00Europe/Berlin", "--schedules\x00" + dir, "--state\x00" + state} {
		if !strings.Contains(joined, want) {
			t.Errorf("ExecStart %q lacks %q", words, strings.ReplaceAll(want, "\x00", " "))
		}
	}
	if got := unitValue(t, services[0], "Environment"); !strings.Contains(got, "HAB_BINLINK_DIR=/opt/my bin") {
		t.Errorf("Environment=%s", got)
	}
	// Run the service's command at the times the timer fires (03:00 in
	// Berlin, 01:00 UTC in summer): the first firing after creation runs.
	if words[0] != "/usr/bin/hab-gc" {
		t.Fatalf("exe %q", words[0])
	}
	for _, now := range []string{"2026-06-01T00:00:00Z", "2026-06-02T01:00:05Z"} {
		code, _, errs := hab(t, env, append(words[1:], "--now", now)...)
		if code != 0 {
			t.Fatalf("%v: %d %s", words, code, errs)
		}
		if now != "2026-06-01T00:00:00Z" && !strings.Contains(errs, "job ran") {
			t.Fatalf("the timer's first firing (%s) ran nothing:\n%s", now, errs)
		}
	}
	t.Run("systemd-analyze verify", func(t *testing.T) {
		analyze := testtool.Need(t, "systemd-analyze", "systemd")
		// systemd-analyze verify needs the executable to exist.
		exe := filepath.Join(base, "my bin", "hab-gc")
		os.MkdirAll(filepath.Dir(exe), 0o755)
		os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
		if code, _, errs := hab(t, env, "schedule", "export", "--schedules", dir, "--state", state, "--out", out, "--exe", exe, "--timezone", "Europe/Berlin"); code != 0 {
			t.Fatalf("export: %s", errs)
		}
		timers, _ := filepath.Glob(filepath.Join(out, "*.timer"))
		cmd := exec.Command(analyze, "verify", "--man=no", timers[0], services[0])
		if outb, err := cmd.CombinedOutput(); err != nil || len(outb) > 0 {
			t.Fatalf("systemd-analyze verify: %v\n%s", err, outb)
		}
	})
}

// TestReexportRemovesStaleUnits: units hab-gc exported for a job that no
// longer exists are removed; other files are left alone.
func TestReexportRemovesStaleUnits(t *testing.T) {
	root := storetest.New(t).Root
	dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(root, "@daily-random"), "b": schedtest.Prune(root, "@weekly-random")})
	out := testtool.TempDir(t)
	os.WriteFile(filepath.Join(out, "hab-gc-prune-mine.timer"), []byte("[Timer]\nOnCalendar=daily\n"), 0o644)
	args := []string{"schedule", "export", "--schedules", dir, "--state", filepath.Join(testtool.TempDir(t), "s.json"), "--out", out, "--exe", "/bin/hab-gc"}
	if code, _, errs := hab(t, nil, args...); code != 0 {
		t.Fatal(errs)
	}
	if units, _ := filepath.Glob(filepath.Join(out, "hab-gc-*-r-*")); len(units) != 4 {
		t.Fatalf("units: %v", units)
	}
	os.Remove(filepath.Join(dir, "b.toml"))
	if code, _, errs := hab(t, nil, args...); code != 0 {
		t.Fatal(errs)
	}
	if units, _ := filepath.Glob(filepath.Join(out, "hab-gc-*-r-*")); len(units) != 2 {
		t.Fatalf("after b went: %v", units)
	}
	if _, err := os.Stat(filepath.Join(out, "hab-gc-prune-mine.timer")); err != nil {
		t.Fatal("a unit hab-gc did not write was removed")
	}
}
