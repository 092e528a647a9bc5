package schedule_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestStateWritable: a state file that exists, one that does not in a
// directory that does, and one below directories not made yet are
// writable in a directory of the user's (access(2) on Unix, an open for
// FILE_WRITE_DATA on Windows).
func TestStateWritable(t *testing.T) {
	dir := testtool.TempDir(t)
	existing := filepath.Join(dir, "state.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{existing, filepath.Join(dir, "new.json"), filepath.Join(dir, "a", "b", "state.json")} {
		if err := schedule.StateWritable(p); err != nil {
			t.Errorf("%s: %v, want writable", p, err)
		}
	}
}

// TestStateNotWritable: a read-only state file, or a read-only nearest
// existing directory, is named in the error (not as root: root may write
// anything on a writable file system). On Windows a directory's read-only
// attribute does not stop files being made in it (an ACL would, which
// Wine does not show): only the read-only file is checked there.
func TestStateNotWritable(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root may write a read-only file")
	}
	dir := testtool.TempDir(t)
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
	cases := map[string]string{
		file:                                  file,
		filepath.Join(ro, "state.json"):       ro,
		filepath.Join(ro, "x", "y", "s.json"): ro,
	}
	if runtime.GOOS == "windows" {
		cases = map[string]string{file: file}
	}
	for p, named := range cases {
		err := schedule.StateWritable(p)
		if err == nil || !strings.HasPrefix(err.Error(), named+": ") {
			t.Errorf("%s: %v, want an error naming %s", p, err, named)
		}
	}
}
