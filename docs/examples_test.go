package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryPackageHasExample requires a runnable example (a func Example...
// with an // Output: comment) in every public package of the module: the
// library is used from its documentation.
func TestEveryPackageHasExample(t *testing.T) {
	example := regexp.MustCompile(`(?s)func Example\w*\(\) \{.*?// Output:`)
	pkgs := map[string]bool{} // dir -> has an example
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != ".." && (strings.HasPrefix(name, ".") || name == "internal" || name == "testdata" || name == "cmd" || name == "habitat") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		dir := filepath.Dir(p)
		if dir == ".." {
			return nil
		}
		if _, ok := pkgs[dir]; !ok {
			pkgs[dir] = false
		}
		if strings.HasSuffix(name, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if example.Match(b) {
				pkgs[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages", len(pkgs))
	}
	for dir, ok := range pkgs {
		if !ok {
			t.Errorf("package %s has no runnable example (func Example... with // Output:)", strings.TrimPrefix(dir, "../"))
		}
	}
}
