package docs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.md
var pages embed.FS

type Topic struct {
	Name     string // what `hab-gc help NAME` takes
	Title    string
	Markdown string // as written, title included
}

// Topics are sorted by name.
func Topics() []Topic {
	names, err := fs.Glob(pages, "*.md")
	if err != nil { // only a malformed pattern fails
		panic(err)
	}
	sort.Strings(names)
	out := make([]Topic, 0, len(names))
	for _, n := range names {
		b, err := pages.ReadFile(n)
		if err != nil { // embedded: cannot fail for a listed name
			panic(err)
		}
		out = append(out, parse(strings.TrimSuffix(n, ".md"), string(b)))
	}
	return out
}

func Lookup(name string) (Topic, bool) {
	b, err := pages.ReadFile(name + ".md")
	if err != nil || strings.ContainsAny(name, "/.") {
		return Topic{}, false
	}
	return parse(name, string(b)), true
}

func parse(name, md string) Topic {
	first, _, _ := strings.Cut(md, "\n")
	return Topic{Name: name, Title: strings.TrimPrefix(first, "# "), Markdown: md}
}

// Body is the page without its title line.
func (t Topic) Body() string {
	_, rest, _ := strings.Cut(t.Markdown, "\n")
	return strings.TrimSpace(rest) + "\n"
}

// Text is the body as plain text filled to Width columns; a link to
// another page names its help topic.
func (t Topic) Text() string {
	return renderText(t.Body())
}

// Man is the body as man(7) roff, its tables readable at 80 columns.
func (t Topic) Man() string {
	return renderRoff(t.Body())
}
