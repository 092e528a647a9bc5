package docs_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoConflictMarkers: no file of the repository keeps a merge's
// conflict markers (docs/comparison.md kept a "<<<<<<< HEAD" block for a
// round, its table showing both sides).
func TestNoConflictMarkers(t *testing.T) {
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != ".." && strings.HasPrefix(n, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".toml", ".txtar", ".sh", ".txt", ".yaml", ".yml", ".json", ".tmpl":
		default:
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			l := sc.Text()
			if strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") {
				t.Errorf("%s:%d: a merge conflict marker: %q", p, n, l)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}
