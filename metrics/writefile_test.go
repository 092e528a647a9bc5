package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A metrics file that cannot be written is named in the error, never the
// temporary file it is written through (an operator would look for a file
// that never existed); no temporary file is left behind.
func TestWriteFileErrorNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		path string
		prep func(path string)
		says string
	}{
		{"directory missing", filepath.Join(dir, "missing", "hab_gc.prom"), func(string) {}, "no such file or directory"},
		{"a directory at the name", filepath.Join(dir, "isdir.prom"), func(p string) {
			os.Mkdir(p, 0o755)
			os.WriteFile(filepath.Join(p, "x"), nil, 0o644)
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.prep(tc.path)
			err := New().WriteFile(tc.path)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Count(msg, filepath.Base(tc.path)) != 1 || !strings.Contains(msg, tc.path) || !strings.Contains(msg, tc.says) {
				t.Fatalf("error %q: want it to name %s once, saying %q", msg, tc.path, tc.says)
			}
			entries, _ := os.ReadDir(filepath.Dir(tc.path))
			for _, e := range entries {
				if e.Name() != filepath.Base(tc.path) {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}
