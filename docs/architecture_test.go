package docs_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/docs"
)

const module = "github.com/hab-gc/hab-gc/"

// layerRowRE is a row of the layers table: "| 2. the store | `pkgstore` | ...".
var layerRowRE = regexp.MustCompile(`^\| (\d+)\. [^|]+\| ([^|]+)\|`)

// pkgNameRE is one package of a row's second column.
var pkgNameRE = regexp.MustCompile("`([a-z/-]+)`")

// layers reads the layers table of the architecture page: each package's
// layer number.
func layers(t *testing.T) map[string]int {
	page, ok := docs.Lookup("architecture")
	if !ok {
		t.Fatal("no architecture page")
	}
	out := map[string]int{}
	for _, l := range strings.Split(page.Markdown, "\n") {
		m := layerRowRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, p := range pkgNameRE.FindAllStringSubmatch(m[2], -1) {
			out[p[1]] = n
		}
	}
	return out
}

// moduleImports is every package of the module under root (test files,
// testdata and internal test support aside) with the module packages its
// non-test files import.
func moduleImports(t *testing.T, root string) map[string][]string {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if d, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], d) {
				out[pkg] = append(out[pkg], d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layerOf is the layer of pkg: its own row, or its closest parent's
// (pkgstore/pkgstoretest is pkgstore's). Packages of internal/ that the
// table does not name are helpers any layer may use: layer 0.
func layerOf(l map[string]int, pkg string) (int, bool) {
	for p := pkg; p != "."; p = filepath.Dir(p) {
		if n, ok := l[p]; ok {
			return n, true
		}
	}
	return 0, strings.HasPrefix(pkg, "internal/")
}

// TestArchitectureLayers keeps docs/architecture.md's layers true: every
// package of the module is in a layer, and imports only packages of its
// own layer or below (internal/storetest, test support, aside).
func TestArchitectureLayers(t *testing.T) {
	l := layers(t)
	if len(l) < 10 {
		t.Fatalf("read only %d packages from the layers table", len(l))
	}
	imports := moduleImports(t, "..")
	if len(imports) < 10 {
		t.Fatalf("found only %d packages", len(imports))
	}
	for pkg, deps := range imports {
		if pkg == "." || pkg == "docs" || pkg == "internal/storetest" || pkg == "internal/benchstore" {
			continue // docs: the pages; storetest, benchstore: test support
		}
		mine, ok := layerOf(l, pkg)
		if !ok {
			t.Errorf("package %s is in no layer of docs/architecture.md", pkg)
			continue
		}
		for _, d := range deps {
			theirs, ok := layerOf(l, d)
			if ok && theirs > mine {
				t.Errorf("%s (layer %d) imports %s (layer %d): an arrow upwards", pkg, mine, d, theirs)
			}
		}
	}
	for p := range l {
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("the layers table names %s, which is not a package directory: %v", p, err)
		}
	}
}
