package schedule

import (
	"os"
	"testing"
)

// A state path without a directory part (the daemon's --state state.json)
// locks and saves in the working directory.
func TestStateLockRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := updateState("state.json", func(*State) bool { return true }); err != nil {
		t.Fatalf("updateState(%q): %v", "state.json", err)
	}
	for _, name := range []string{"state.json", "state.json.lock"} {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s not in the working directory: %v", name, err)
		}
	}
}
