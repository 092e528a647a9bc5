package docs_test

import (
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/docs"
)

// libraryTasks is how many go blocks docs/library.md shows at least: the
// six integrator tasks (purge after an update, dry run with a
// damaged store, lease around an install, scheduled jobs from code with a
// trigger and a cancel, metrics and history from code, two concurrent
// runs).
const libraryTasks = 6

// maxBlockLines bounds each go block of docs/library.md: "under 20 lines".
const maxBlockLines = 19

// TestLibraryBlocksAreExamples keeps the Library page true: each go block
// is under 20 lines and appears, line for line (modulo indentation), in
// the body of a runnable example of the module (func Example... with an
// // Output: comment), so `go test ./...` compiles and runs what the page
// shows.
func TestLibraryBlocksAreExamples(t *testing.T) {
	page, ok := docs.Lookup("library")
	if !ok {
		t.Fatal("no library page")
	}
	blocks := goBlocks(page.Markdown)
	if len(blocks) < libraryTasks {
		t.Errorf("library.md has %d go blocks, want at least %d (one per integrator task)", len(blocks), libraryTasks)
	}
	bodies := exampleBodies(t, "..")
	if len(bodies) < 10 {
		t.Fatalf("found only %d runnable examples", len(bodies))
	}
	for _, b := range blocks {
		t.Run(b.first, func(t *testing.T) {
			if len(b.lines) > maxBlockLines {
				t.Errorf("line %d: a block of %d lines, want at most %d", b.line, len(b.lines), maxBlockLines)
			}
			for _, body := range bodies {
				if containsRun(body.lines, b.lines) {
					return
				}
			}
			t.Errorf("line %d: this block is not in the body of any runnable example (func Example... with // Output:):\n%s",
				b.line, strings.Join(b.lines, "\n"))
		})
	}
}

type block struct {
	line  int    // where it starts in the page (1-based, its first code line)
	first string // its first line, for the subtest's name
	lines []string
}

// goBlocks returns the ```go fenced blocks of a markdown page, each line
// trimmed of its indentation.
func goBlocks(md string) []block {
	var out []block
	var cur *block
	for i, l := range strings.Split(md, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(l) == "```go":
			cur = &block{line: i + 2}
		case cur != nil && strings.TrimSpace(l) == "```":
			if len(cur.lines) > 0 {
				cur.first = cur.lines[0]
			}
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, strings.TrimSpace(l))
		}
	}
	return out
}

type exampleBody struct {
	name  string
	lines []string
}

// exampleBodies returns the body, each line trimmed of its indentation, of
// every example with an output comment (which go test runs) in the
// module's test files under root.
func exampleBodies(t *testing.T, root string) []exampleBody {
	t.Helper()
	var out []exampleBody
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, ex := range doc.Examples(f) {
			if ex.Output == "" && !ex.EmptyOutput {
				continue // compiled, never run
			}
			code := string(src[fset.Position(ex.Code.Pos()).Offset:fset.Position(ex.Code.End()).Offset])
			var lines []string
			for _, l := range strings.Split(code, "\n") {
				lines = append(lines, strings.TrimSpace(l))
			}
			out = append(out, exampleBody{name: p + ": Example" + ex.Name, lines: lines})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// containsRun reports whether want appears in lines as a contiguous run.
func containsRun(lines, want []string) bool {
	if len(want) == 0 {
		return false
	}
	for i := range lines {
		if i+len(want) <= len(lines) && slices.Equal(lines[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
