package docs

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/internal/display"
)

const Width = 80

// manTableWidth: man indents a section's body 7 columns, an example 4 more.
const manTableWidth = Width - 12

type block struct {
	kind   blockKind
	indent int      // columns the block sits at in the source (list nesting)
	level  int      // a heading's number of #
	marker string   // a list item's "- " or "1. "
	lines  []string // the source lines, without their indent
	gap    bool     // a blank line comes before it in the source
}

type blockKind int

const (
	blockPara blockKind = iota
	blockHeading
	blockCode
	blockTable
)

var (
	itemRE    = regexp.MustCompile(`^(- |\* |[0-9]+\. )`)
	linkRE    = regexp.MustCompile(`\[([^\]]+)\]\(([^)]*)\)`)
	emphRE    = regexp.MustCompile(`(^|[\s(])\*([^*\s]([^*]*[^*\s])?)\*`)
	headingRE = regexp.MustCompile(`^#{1,6} `)
)

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// parseBlocks knows what the pages use: "#" headings, paragraphs, "-" and
// "1." items with indented continuations, fenced and indented code, pipe
// tables.
func parseBlocks(md string) []block {
	var out []block
	lines := strings.Split(md, "\n")
	var cur *block
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	blank := true
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		t := strings.TrimLeft(l, " ")
		ind := indentOf(l)
		switch {
		case t == "":
			flush()
			blank = true
			continue
		case strings.HasPrefix(t, "```"):
			flush()
			b := block{kind: blockCode, indent: ind, gap: true}
			for i++; i < len(lines); i++ {
				c := strings.TrimRight(lines[i], " \t")
				if strings.HasPrefix(strings.TrimLeft(c, " "), "```") {
					break
				}
				c = strings.ReplaceAll(c, "\t", "    ")
				if indentOf(c) >= ind {
					c = c[ind:]
				} else {
					c = strings.TrimLeft(c, " ")
				}
				b.lines = append(b.lines, c)
			}
			out = append(out, b)
		case blank && ind >= 4 && (len(out) == 0 || ind >= out[len(out)-1].textIndent()+4):
			b := block{kind: blockCode, indent: ind, gap: true}
			for ; i < len(lines); i++ {
				c := strings.TrimRight(lines[i], " \t")
				if c != "" && indentOf(c) < ind {
					break
				}
				if c != "" {
					c = strings.ReplaceAll(c[ind:], "\t", "    ")
				}
				b.lines = append(b.lines, c)
			}
			for len(b.lines) > 0 && b.lines[len(b.lines)-1] == "" {
				b.lines = b.lines[:len(b.lines)-1]
			}
			i--
			out = append(out, b)
		case headingRE.MatchString(t):
			flush()
			n := strings.Index(t, " ")
			out = append(out, block{kind: blockHeading, level: n, lines: []string{t[n+1:]}, gap: true})
		case strings.HasPrefix(t, "|"):
			if cur == nil || cur.kind != blockTable {
				flush()
				cur = &block{kind: blockTable, indent: ind, gap: true}
			}
			cur.lines = append(cur.lines, t)
		case itemRE.MatchString(t):
			flush()
			m := itemRE.FindString(t)
			cur = &block{kind: blockPara, indent: ind, marker: m, lines: []string{t[len(m):]}, gap: blank || len(out) == 0 || out[len(out)-1].marker == ""}
		case cur != nil && cur.kind == blockPara:
			cur.lines = append(cur.lines, t)
		default:
			flush()
			cur = &block{kind: blockPara, indent: ind, lines: []string{t}, gap: true}
		}
		blank = false
	}
	flush()
	return out
}

func (b block) textIndent() int { return b.indent + len(b.marker) }

// inline drops code marks, emphasis and links (see linkText).
func inline(s string, ref func(page string) string) string {
	var b strings.Builder
	parts := strings.Split(s, "`")
	for i, p := range parts {
		if i%2 == 1 { // inside a code span
			b.WriteString(p)
			continue
		}
		p = strings.ReplaceAll(p, "**", "")
		p = emphRE.ReplaceAllString(p, "$1$2")
		p = linkRE.ReplaceAllStringFunc(p, func(m string) string { return linkText(m, ref) })
		b.WriteString(p)
	}
	return b.String()
}

func helpRef(page string) string { return "hab-gc help " + page }
func manRef(page string) string  { return "hab-gc-" + page + "(1)" }

func width(s string) int { return utf8.RuneCountInString(s) }

func parseTable(lines []string, ref func(string) string) [][]string {
	var rows [][]string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
		cells := strings.Split(l, "|")
		if strings.Trim(l, "|-: ") == "" {
			continue // the delimiter row
		}
		for i, c := range cells {
			cells[i] = strings.Join(strings.Fields(inline(strings.TrimSpace(c), ref)), " ")
		}
		rows = append(rows, cells)
	}
	return rows
}

// tableText lays a table out in w columns: aligned when they fit; two
// columns as a tag and its text; else one record a row.
func tableText(rows [][]string, w int) []string {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows[0])
	widths := make([]int, n)
	for _, r := range rows {
		for i := 0; i < n && i < len(r); i++ {
			widths[i] = max(widths[i], width(r[i]))
		}
	}
	total := 2 * (n - 1)
	for _, c := range widths {
		total += c
	}
	cell := func(r []string, i int) string {
		if i < len(r) {
			return r[i]
		}
		return ""
	}
	var out []string
	if total <= w {
		for ri, r := range rows {
			var b strings.Builder
			for i := range n {
				c := cell(r, i)
				b.WriteString(c)
				if i < n-1 {
					b.WriteString(strings.Repeat(" ", widths[i]-width(c)+2))
				}
			}
			out = append(out, strings.TrimRight(b.String(), " "))
			if ri == 0 {
				var d strings.Builder
				for i := range n {
					d.WriteString(strings.Repeat("-", widths[i]))
					if i < n-1 {
						d.WriteString("  ")
					}
				}
				out = append(out, d.String())
			}
		}
		return out
	}
	if n == 2 {
		tag := min(widths[0], w/3)
		pad := strings.Repeat(" ", tag+2)
		for _, r := range rows[1:] {
			first := cell(r, 0)
			if width(first) > tag {
				out = append(out, first)
				out = append(out, display.Fill(cell(r, 1), w, pad, pad)...)
				continue
			}
			first += strings.Repeat(" ", tag-width(first)+2)
			out = append(out, display.Fill(cell(r, 1), w, first, pad)...)
		}
		return out
	}
	head := rows[0]
	for ri, r := range rows[1:] {
		if ri > 0 {
			out = append(out, "")
		}
		out = append(out, display.Fill(cell(r, 0), w, "", "  ")...)
		for i := 1; i < n; i++ {
			if cell(r, i) == "" {
				continue
			}
			out = append(out, display.Fill(cell(head, i)+": "+cell(r, i), w, "    ", "      ")...)
		}
	}
	return out
}

func renderText(md string) string {
	var out []string
	for _, b := range parseBlocks(md) {
		pad := strings.Repeat(" ", b.indent)
		switch b.kind {
		case blockHeading:
			h := inline(b.lines[0], helpRef)
			out = append(out, "", h)
			if b.level <= 2 {
				out = append(out, strings.Repeat("-", width(h)))
			}
		case blockCode:
			out = append(out, "")
			for _, l := range b.lines {
				out = append(out, strings.TrimRight(pad+"    "+l, " "))
			}
		case blockTable:
			out = append(out, "")
			for _, l := range tableText(parseTable(b.lines, helpRef), Width-b.indent) {
				out = append(out, strings.TrimRight(pad+l, " "))
			}
		default:
			text := inline(strings.Join(b.lines, " "), helpRef)
			if b.gap {
				out = append(out, "")
			}
			out = append(out, display.Fill(text, Width, pad+b.marker, strings.Repeat(" ", b.textIndent()))...)
		}
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	return strings.Join(out, "\n") + "\n"
}

// roffEscape: a flag's "-" must stay a minus to be copied.
func roffEscape(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

func roffLine(s string) string {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		return `\&` + s
	}
	return s
}

// roffInline sets code in bold, emphasis in italics.
func roffInline(s string) string {
	var b strings.Builder
	parts := strings.Split(s, "`")
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString(`\fB` + roffEscape(p) + `\fR`)
			continue
		}
		p = linkRE.ReplaceAllStringFunc(p, manLink)
		p = roffEscape(p)
		p = strings.ReplaceAll(p, "**", "")
		p = emphRE.ReplaceAllString(p, `$1\fI$2\fR`)
		b.WriteString(p)
	}
	return b.String()
}

func renderRoff(md string) string {
	var out []string
	type item struct{ textIndent, width int }
	var open []item // list items the current block may be inside
	rs := 0         // .RS levels in effect, one for each of open[:rs]
	setRS := func(n int) {
		for ; rs > n; rs-- {
			out = append(out, ".RE")
		}
		for ; rs < n; rs++ {
			out = append(out, fmt.Sprintf(".RS %d", open[rs].width))
		}
	}
	for _, b := range parseBlocks(md) {
		for len(open) > 0 && open[len(open)-1].textIndent > b.indent {
			open = open[:len(open)-1]
		}
		if b.kind == blockHeading {
			open = open[:0]
		}
		setRS(min(rs, len(open)))
		setRS(len(open))
		switch b.kind {
		case blockHeading:
			macro := ".SH"
			if b.level > 2 {
				macro = ".SS"
			}
			out = append(out, macro+` "`+strings.ReplaceAll(roffInline(b.lines[0]), `"`, `\(dq`)+`"`)
		case blockCode, blockTable:
			lines := b.lines
			if b.kind == blockTable {
				lines = tableText(parseTable(b.lines, manRef), manTableWidth-2*len(open))
			}
			out = append(out, ".PP", ".RS 4", ".nf")
			for _, l := range lines {
				out = append(out, roffLine(roffEscape(l)))
			}
			out = append(out, ".fi", ".RE")
		default:
			text := roffLine(roffInline(strings.Join(b.lines, " ")))
			if b.marker == "" {
				out = append(out, ".PP", text)
				continue
			}
			tag := `\(bu`
			if m := strings.TrimSpace(b.marker); m != "-" && m != "*" {
				tag = m
			}
			out = append(out, fmt.Sprintf(".IP %s %d", tag, len(b.marker)), text)
			open = append(open, item{b.textIndent(), len(b.marker)})
		}
	}
	setRS(0)
	return strings.Join(out, "\n") + "\n"
}

func manLink(m string) string { return linkText(m, manRef) }

// linkText keeps a link's text, then a web address or ref(page); one
// within the page is its text alone.
func linkText(m string, ref func(page string) string) string {
	sm := linkRE.FindStringSubmatch(m)
	text, target := sm[1], sm[2]
	switch {
	case strings.Contains(target, "://"):
		return text + " (" + target + ")"
	case strings.HasPrefix(target, "#") || target == "":
		return text
	}
	page, _, _ := strings.Cut(target, "#")
	return text + " (" + ref(strings.TrimSuffix(page, ".md")) + ")"
}
