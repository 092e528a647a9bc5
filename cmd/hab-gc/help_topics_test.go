package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/docs"
)

// `hab-gc help TOPIC` prints the docs page TOPIC as text
// for every page, also one named as a command (history: the command's help
// stays `hab-gc history --help`): no markdown fence lines, no pipe tables,
// no [links](#anchors), lines within 80 columns but for a code line already
// wider in the page.
func TestHelpTopicsArePagesAsText(t *testing.T) {
	fence := regexp.MustCompile("(?m)^\\s*(```.*|sh|toml|yaml|go|json|console)\\s*$")
	for _, tp := range docs.Topics() {
		t.Run(tp.Name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := execute([]string{"help", tp.Name}, &stdout, &stderr, noEnv); code != exitOK {
				t.Fatalf("help %s: exit %d: %s", tp.Name, code, stderr.String())
			}
			out := stdout.String()
			// The page's first sentence, whatever its markup.
			first := strings.Fields(tp.Text())
			if len(first) > 6 {
				first = first[:6]
			}
			if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(first, " ")) {
				t.Fatalf("help %s does not show docs/%s.md (no %q):\n%s", tp.Name, tp.Name, strings.Join(first, " "), out)
			}
			if m := fence.FindString(out); m != "" {
				t.Errorf("help %s prints a fence line %q", tp.Name, m)
			}
			if strings.Contains(out, "|---") || regexp.MustCompile(`(?m)^\|.*\|$`).MatchString(out) {
				t.Errorf("help %s prints a pipe table", tp.Name)
			}
			if m := regexp.MustCompile(`\]\([^)]*\)`).FindString(out); m != "" {
				t.Errorf("help %s prints a markdown link %q", tp.Name, m)
			}
			code := codeLines(tp.Markdown)
			for _, l := range strings.Split(out, "\n") {
				if c, ok := code[strings.TrimSpace(l)]; utf8.RuneCountInString(l) > 80 && !(ok && c.output) {
					t.Errorf("help %s: a line over 80 columns: %q", tp.Name, l)
				}
			}
		})
	}
	// The command's own help stays --help.
	var stdout, stderr bytes.Buffer
	if code := execute([]string{"history", "--help"}, &stdout, &stderr, noEnv); code != exitOK || !strings.Contains(stdout.String(), "Usage:") {
		t.Errorf("history --help: exit %d:\n%s", code, stdout.String())
	}
}
