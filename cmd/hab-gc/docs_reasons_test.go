package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReasonCodesDocumented keeps docs/output.md's reason-code table
// complete: every Code constant of retention, pressure and artifactcache
// has a row, and every row names a code that exists.
func TestReasonCodesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/output.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Reason codes\n")
	if !ok {
		t.Fatal("docs/output.md has no Reason codes section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllStringSubmatch(sec, -1) {
		documented[m[1]] = true
	}
	defined := map[string]bool{}
	constant := regexp.MustCompile(`(?m)^\s*(?:const\s+)?(Code\w*)\s+(?:retention\.)?Code = "([a-z-]+)"`)
	for _, dir := range []string{"retention", "internal/inuse", "pressure", "artifactcache"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range constant.FindAllStringSubmatch(string(src), -1) {
				defined[m[2]] = true
			}
		}
	}
	if len(defined) < 20 {
		t.Fatalf("found only %d codes: the pattern broke", len(defined))
	}
	for c := range defined {
		if !documented[c] {
			t.Errorf("reason code %s has no row in docs/output.md's Reason codes", c)
		}
	}
	for c := range documented {
		if !defined[c] {
			t.Errorf("docs/output.md documents reason code %s, which no package defines", c)
		}
	}
}
