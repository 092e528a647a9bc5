package docs_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/docs"
)

// TestTopicsArePages checks every markdown file here is a topic with a
// title, and that Lookup finds each one and nothing else.
func TestTopicsArePages(t *testing.T) {
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var md []string
	for _, f := range files {
		if strings.HasSuffix(f.Name(), ".md") {
			md = append(md, strings.TrimSuffix(f.Name(), ".md"))
		}
	}
	topics := docs.Topics()
	if len(topics) != len(md) || len(md) == 0 {
		t.Fatalf("%d topics for %d pages", len(topics), len(md))
	}
	for _, tp := range topics {
		t.Run(tp.Name, func(t *testing.T) {
			if !strings.HasPrefix(tp.Markdown, "# ") || tp.Title == "" {
				t.Fatalf("%s.md does not start with a \"# \" title", tp.Name)
			}
			got, ok := docs.Lookup(tp.Name)
			if !ok || got.Markdown != tp.Markdown {
				t.Fatalf("Lookup(%q) = %v", tp.Name, ok)
			}
			if strings.Contains(tp.Text(), "`") || strings.Contains(tp.Text(), "**") {
				t.Fatal("Text keeps markdown marks")
			}
		})
	}
	for _, bad := range []string{"", "nope", "../README", "safety.md"} {
		if _, ok := docs.Lookup(bad); ok {
			t.Errorf("Lookup(%q) found a page", bad)
		}
	}
}

// TestLinksResolve checks that every relative link between the pages and
// from the README names a page (and a heading in it) that exists.
func TestLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#:]*\.md)?(#[a-z0-9-]+)?\)`)
	files := map[string]string{"../README.md": ""}
	for _, tp := range docs.Topics() {
		files[tp.Name+".md"] = tp.Markdown
	}
	for f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	for f, text := range files {
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target, frag := m[1], m[2]
			if target == "" && frag == "" {
				continue
			}
			path := f
			if target != "" {
				path = target
				if f == "../README.md" {
					path = strings.TrimPrefix(target, "docs/")
					if path == target {
						path = "../" + target
					}
				}
			}
			body, ok := files[path]
			if !ok {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("%s links to %s, which does not exist", f, m[0])
					continue
				}
				body = string(b)
			}
			if frag != "" && !hasAnchor(body, frag[1:]) {
				t.Errorf("%s links to %s: no such heading", f, m[0])
			}
		}
	}
}

func hasAnchor(md, anchor string) bool {
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		h = regexp.MustCompile(`[^a-z0-9 -]`).ReplaceAllString(h, "")
		if strings.ReplaceAll(h, " ", "-") == anchor {
			return true
		}
	}
	return false
}

// TestPagesCiteNoTracker checks that no page an operator reads (every
// embedded page, and the README) cites the project's tracker ("issue 35",
// "item 4") or dates a former behaviour ("until 2026-12-04"): a page says
// what hab-gc does. Habitat's own issues ("Habitat issue 6426") may be cited.
func TestPagesCiteNoTracker(t *testing.T) {
	t.Parallel()
	bad := regexp.MustCompile(`(?i)(\S+\s+)?\b(issue|item)s?\s+[0-9]|\buntil\s+[0-9]{4}-[0-9]{2}-[0-9]{2}`)
	pages := map[string]string{}
	for _, tp := range docs.Topics() {
		pages[tp.Name+".md"] = tp.Markdown
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages["README.md"] = string(readme)
	for name, md := range pages {
		for i, line := range strings.Split(md, "\n") {
			for _, m := range bad.FindAllStringSubmatch(line, -1) {
				if strings.EqualFold(strings.Trim(m[1], " \t([*`\""), "Habitat") {
					continue
				}
				t.Errorf("%s:%d cites %q: say what hab-gc does, not where it came from", name, i+1, strings.TrimSpace(m[0]))
			}
		}
	}
}
