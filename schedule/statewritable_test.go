package schedule_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

// TestStateWritable: a state file that exists, one that does not in a
// directory that does, and one below directories not made yet are
// writable in a directory of the user's; elsewhere than Unix it is
// unsupported.
func TestStateWritable(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "state.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{existing, filepath.Join(dir, "new.json"), filepath.Join(dir, "a", "b", "state.json")} {
		err := schedule.StateWritable(p)
		if runtime.GOOS == "windows" {
			if !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("%s: %v, want ErrUnsupported", p, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v, want writable", p, err)
		}
	}
}

// TestStateNotWritable: a read-only state file, or a read-only nearest
// existing directory, is named in the error (not as root: root may write
// anything on a writable file system).
func TestStateNotWritable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unsupported: see TestStateWritable")
	}
	if os.Getuid() == 0 {
		t.Skip("root may write a read-only file")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "state.json")
	if err := os.WriteFile(file, []byte("{}"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	for p, named := range map[string]string{
		file:                                  file,
		filepath.Join(ro, "state.json"):       ro,
		filepath.Join(ro, "x", "y", "s.json"): ro,
	} {
		err := schedule.StateWritable(p)
		if err == nil || !strings.HasPrefix(err.Error(), named+": ") {
			t.Errorf("%s: %v, want an error naming %s", p, err, named)
		}
	}
}
