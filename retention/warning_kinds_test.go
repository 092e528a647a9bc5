package retention_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestWarningKindsDocumented keeps docs/output.md's line of warning kinds
// true: it names every WarningKind retention/warning.go defines, and no
// other.
func TestWarningKindsDocumented(t *testing.T) {
	src, err := os.ReadFile("warning.go")
	if err != nil {
		t.Fatal(err)
	}
	var defined []string
	for _, m := range regexp.MustCompile(`WarningKind = "([a-z-]+)"`).FindAllStringSubmatch(string(src), -1) {
		defined = append(defined, m[1])
	}
	if len(defined) < 5 {
		t.Fatalf("found only %d warning kinds in retention/warning.go", len(defined))
	}
	doc, err := os.ReadFile("../docs/output.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile("(?m)^Warning kinds: .*$").Find(doc)
	if line == nil {
		t.Fatal(`docs/output.md has no line starting "Warning kinds: "`)
	}
	var listed []string
	for _, m := range regexp.MustCompile("`([a-z][a-z-]*)`").FindAllStringSubmatch(string(line), -1) {
		if !slices.Contains(listed, m[1]) {
			listed = append(listed, m[1])
		}
	}
	slices.Sort(defined)
	slices.Sort(listed)
	if !slices.Equal(defined, listed) {
		t.Errorf("docs/output.md's warning kinds %s; retention defines %s", strings.Join(listed, ", "), strings.Join(defined, ", "))
	}
}
