package schedtest_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// The definitions are what their docs say, as the scheduler reads them.
func TestDefinitions(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "hab", "pkgs"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := schedule.ParseDefinition("p.toml", []byte(schedtest.Prune(root, "17 3 * * *")))
	if err != nil {
		t.Fatal(err)
	}
	if d.FSRoot != root || len(d.Jobs) != 1 || d.Jobs[0].Type != schedule.Prune || d.Watch != nil ||
		d.Jobs[0].Params.KeepLatest != 1 || d.Jobs[0].Params.MinAge != retention.NoMinAge {
		t.Errorf("Prune: %+v", d)
	}
	d, err = schedule.ParseDefinition("w.toml", []byte(schedtest.Watch(root, `delay = "200ms"`)))
	if err != nil {
		t.Fatal(err)
	}
	if d.FSRoot != root || len(d.Jobs) != 1 || d.Jobs[0].Type != schedule.Check || d.Watch == nil ||
		d.Watch.Params.KeepLatest != 1 || d.Watch.Delay != 200*time.Millisecond {
		t.Errorf("Watch: %+v", d)
	}
}

func TestDir(t *testing.T) {
	dir := schedtest.Dir(t, map[string]string{"a": "x", "b": "y"})
	for name, want := range map[string]string{"a.toml": "x", "b.toml": "y"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v, want %q", name, b, err, want)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("%d files, want 2", len(es))
	}
	if p := schedtest.Write(t, filepath.Join(dir, "sub"), "c", "z"); p != filepath.Join(dir, "sub", "c.toml") {
		t.Errorf("Write made %s", p)
	}
}
