package schedule_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestMachineID: the explicit identity wins, then etc/machine-id below
// the FS root (trimmed), then the host name when the file is missing or
// blank.
func TestMachineID(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Skipf("no host name here: %v", err)
	}
	withID := testtool.TempDir(t)
	if err := os.MkdirAll(filepath.Join(withID, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(withID, "etc", "machine-id"), []byte("  abc123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	blank := testtool.TempDir(t)
	os.MkdirAll(filepath.Join(blank, "etc"), 0o755)
	if err := os.WriteFile(filepath.Join(blank, "etc", "machine-id"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, root, explicit, want string
	}{
		{"explicit", withID, " mine ", "mine"},
		{"blank explicit", withID, "  ", "abc123"},
		{"machine-id", withID, "", "abc123"},
		{"blank machine-id", blank, "", host},
		{"no machine-id", testtool.TempDir(t), "", host},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schedule.MachineID(tt.root, tt.explicit)
			if err != nil || got != tt.want {
				t.Errorf("MachineID(%q, %q) = %q, %v; want %q", tt.root, tt.explicit, got, err, tt.want)
			}
		})
	}
}

// TestStateMachineID: a state file's recorded identity replaces the
// machine's own, unless an explicit one is given; an unreadable state
// file counts as none.
func TestStateMachineID(t *testing.T) {
	root := hostStore(t).Root
	dir := testtool.TempDir(t)
	def := fmt.Sprintf("fs_root = %q\n[prune]\nschedule = \"@daily-random\"\nkeep_latest = 2\n", root)
	if err := os.WriteFile(filepath.Join(dir, "a.toml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(testtool.TempDir(t), "state.json")
	s := &schedule.Scheduler{Dir: dir, StatePath: state, Machine: "recorded-one"}
	if probs, err := s.Reload(); err != nil || len(probs) > 0 {
		t.Fatal(probs, err)
	}
	canonical, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := schedule.LoadState(state); err != nil || st.Machines[canonical] != "recorded-one" {
		t.Fatalf("the state recorded %+v, %v; the test needs it to hold the machine", st, err)
	}
	own, err := schedule.MachineID(root, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, explicit, state, want string
	}{
		{"recorded", "", state, "recorded-one"},
		{"explicit over recorded", "given", state, "given"},
		{"no state", "", filepath.Join(testtool.TempDir(t), "none.json"), own},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schedule.StateMachineID(root, tt.explicit, tt.state)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestStoreFSRootAndDefaultState: a store named by its hab/pkgs is its FS
// root; the default state file is below the FS root.
func TestStoreFSRootAndDefaultState(t *testing.T) {
	for in, want := range map[string]string{
		"/":                  "/",
		"/srv/a":             "/srv/a",
		"/srv/a/hab/pkgs":    "/srv/a",
		"/srv/a/hab/pkgs/":   "/srv/a",
		"/hab/pkgs":          "/",
		"relative/hab/pkgs":  "relative",
		"/srv/a/hab/studios": "/srv/a/hab/studios",
		// hab/pkgs as the last two names, not the end of the string
		"/srv/myhab/pkgs":  "/srv/myhab/pkgs",
		"/srv/a/xhab/pkgs": "/srv/a/xhab/pkgs",
		"hab/pkgs":         ".",
	} {
		if got := schedule.StoreFSRoot(filepath.FromSlash(in)); got != filepath.FromSlash(want) {
			t.Errorf("StoreFSRoot(%q) = %q, want %q", in, got, want)
		}
	}
	want := filepath.Join("/r", "hab", "sup", "default", "hab-gc", "schedule-state.json")
	if got, err := schedule.DefaultStatePath("/r"); err != nil || got != want {
		t.Errorf("DefaultStatePath = %q, want %q", got, want)
	}
}
