package docs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.md
var pages embed.FS

// A Topic is one documentation page.
type Topic struct {
	// Name is the page's file name without ".md": what `hab-gc help NAME` takes.
	Name string
	// Title is the page's first heading, without its "# ".
	Title string
	// Markdown is the page as written, title included.
	Markdown string
}

// Topics returns every page, sorted by name.
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

// Lookup returns the page called name.
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

// Body returns the page without its title line, trimmed.
func (t Topic) Body() string {
	_, rest, _ := strings.Cut(t.Markdown, "\n")
	return strings.TrimSpace(rest) + "\n"
}

// Text returns the page's body as plain text for a terminal, filled to
// Width columns: markdown's emphasis and code marks dropped, code blocks
// verbatim and indented without their fence lines, tables laid out as
// text within Width columns, and links as their text (naming the help
// topic of a link to another page).
func (t Topic) Text() string {
	return renderText(t.Body())
}

// Man returns the page's body as roff for a man page (man(7) macros):
// sections, filled paragraphs and lists, code verbatim, and tables laid
// out as text narrow enough to read at 80 columns.
func (t Topic) Man() string {
	return renderRoff(t.Body())
}
