package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// In the man pages the exit-code list is a list, each
// code one item whose text is one paragraph (so man fills it within the
// item), not terminal help lines that man re-wraps mid-line.
func TestManExitCodesAreAList(t *testing.T) {
	dir := testtool.TempDir(t)
	var stdout, stderr bytes.Buffer
	if code := execute([]string{"docs", "--format", "man", dir}, &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("docs: exit %d: %s", code, stderr.String())
	}
	for _, page := range []string{"hab-gc.1", "hab-gc-run.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if !strings.Contains(src, "Exit codes") {
			t.Fatalf("%s: no exit codes", page)
		}
		// A terminal help line of the list, indented: man would join and
		// re-wrap it with the text around it.
		if regexp.MustCompile(`(?m)^ +[0-9] +\S`).MatchString(src) {
			t.Errorf("%s: the exit-code list is kept as indented help lines", page)
		}
		// Code 3's whole text on one source line, in a list item.
		item := regexp.MustCompile(`(?m)^\.(IP|TP)\b.*\n(.*\n)?.*refused: no retention policy set.*\(/proc unreadable`)
		if !item.MatchString(src) {
			t.Errorf("%s: exit code 3 is not one list item:\n%s", page, src[strings.Index(src, "Exit codes"):])
		}
	}
}
