package schedtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// Prune is a definition of one prune of the store under fsRoot at spec
// (a cron expression or a @-shortcut), keeping the newest release of each
// package, whatever its age (keep_latest = 1, min_age = "none").
func Prune(fsRoot, spec string) string {
	return fmt.Sprintf("fs_root = %q\n[prune]\nschedule = %q\nkeep_latest = 1\nmin_age = \"none\"\n", fsRoot, spec)
}

// Watch is a definition of a weekly check of the store under fsRoot and
// a watch (the Supervisor's purge) keeping the newest release, with more
// lines of the [watch] table after it.
func Watch(fsRoot string, watch ...string) string {
	s := fmt.Sprintf("fs_root = %q\n[check]\nschedule = \"@weekly\"\n[watch]\nkeep_latest = 1\n", fsRoot)
	for _, l := range watch {
		s += l + "\n"
	}
	return s
}

// Write writes content as the definition file dir/NAME.toml, making dir
// if it is missing, and returns the file's path.
func Write(t testing.TB, dir, name, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".toml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Dir is a new schedules directory holding NAME.toml for each name of
// files, with its content.
func Dir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := testtool.TempDir(t)
	for name, content := range files {
		Write(t, dir, name, content)
	}
	return dir
}
