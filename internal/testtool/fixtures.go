package testtool

import (
	"os"
	"path/filepath"
	"testing"
)

// HabitatFixturesDir is ../shared/habitat-fixtures beside the repository
// (the directory holding go.mod, found by walking up from the test's
// package directory): real files from Habitat's repository, kept outside
// the project (see that directory's README). It returns "" when absent (a
// clone without it).
func HabitatFixturesDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared", "habitat-fixtures")
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return ""
	}
	return d
}

// HabitatFixture returns the content of Habitat's fixture name, or nil
// when the fixtures directory is absent (the caller skips, saying so, or
// uses a generated equivalent). A fixture missing from a directory that
// exists fails t.
func HabitatFixture(t testing.TB, name string) []byte {
	t.Helper()
	dir := HabitatFixturesDir(t)
	if dir == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
