package testtool

import (
	"os"
	"path/filepath"
	"testing"
)

// A test that runs a copy of its own binary as another user (nobody) needs
// a directory that user can reach, and the copy in it: the test's own
// t.TempDir is private (0700) and so, often, is the binary's directory.

// WorldTempDir makes a directory in the system's temporary directory
// (os.MkdirTemp with pattern) that every user can reach and read (0755),
// removed when the test ends.
func WorldTempDir(t testing.TB, pattern string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	return dir
}

// OpenToOthers makes dir and every directory above it, up to the system's
// temporary directory, reachable by every user (0755); the test is
// skipped when one cannot be.
func OpenToOthers(t testing.TB, dir string) {
	t.Helper()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Skipf("cannot open %s to an unprivileged user: %v", d, err)
		}
	}
}

// CopyTestBinary copies the running test binary to dir/name (0755),
// making dir if it is missing, and returns its path; the test is skipped
// when there is no binary to copy.
func CopyTestBinary(t testing.TB, dir, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Skipf("no test binary to run unprivileged: %v", err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Executable is the running test binary's path (os.Executable), which a
// test runs again as another program (see proctest.RunHelper); the test is
// skipped when it cannot be found.
func Executable(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	return exe
}
