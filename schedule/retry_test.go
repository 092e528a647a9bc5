package schedule_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestExportedServiceRetries: an exported service
// whose run could not start (the store locked past the lock timeout:
// daemon --once exits non-zero, the job stays due) is started again by
// systemd a few minutes later, not only at the timer's next firing.
func TestExportedServiceRetries(t *testing.T) {
	sp, _ := schedule.ParseSpec("@daily-random")
	j := schedule.Job{Key: "r-0123456789abcdef", Type: schedule.Prune, Store: "/hab/pkgs", Spec: sp, Cron: "5 4 * * *", Owner: "a"}
	units, err := schedule.SystemdUnits(j, schedule.Invocation{Exe: "/usr/bin/hab-gc", Args: []string{"daemon", "--once"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	service := units[1].Content
	for _, want := range []string{"\nRestart=on-failure\n", "\nRestartSec=5min\n"} {
		if !strings.Contains(service, want) {
			t.Errorf("the service lacks %q:\n%s", strings.TrimSpace(want), service)
		}
	}
	testtool.Need(t, "systemd-analyze", "systemd")
	dir := testtool.TempDir(t)
	for _, u := range units {
		os.WriteFile(filepath.Join(dir, u.Name), []byte(u.Content), 0o644)
	}
	exe := filepath.Join(dir, "hab-gc")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	u2, _ := schedule.SystemdUnits(j, schedule.Invocation{Exe: exe, Args: []string{"daemon", "--once"}}, nil)
	os.WriteFile(filepath.Join(dir, u2[1].Name), []byte(u2[1].Content), 0o644)
	out, err := exec.Command("systemd-analyze", "verify", "--man=no", filepath.Join(dir, u2[0].Name), filepath.Join(dir, u2[1].Name)).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
