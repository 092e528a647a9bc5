package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hab-gc/hab-gc/docs"
	"github.com/hab-gc/hab-gc/internal/testtool"
)

// fenceRE finds the code blocks of a page: its fenced blocks' lines.
var fenceRE = regexp.MustCompile("(?ms)^ *```[a-z]*\n(.*?)^ *```")

// codeLine is a line of a page's code blocks: its width in the block
// (tabs as 4 columns, as the man pages show them), and whether it is a
// program's output shown after a "$ " prompt, which stays as the program
// writes it, however wide.
type codeLine struct {
	width  int
	output bool
}

// codeLines are the non-blank lines of a page's fenced code blocks,
// without their indent.
func codeLines(md string) map[string]codeLine {
	out := map[string]codeLine{}
	for _, m := range fenceRE.FindAllStringSubmatch(md, -1) {
		prompted, continued := false, false
		for _, l := range strings.Split(m[1], "\n") {
			t := strings.TrimSpace(l)
			if t == "" {
				continue
			}
			command := strings.HasPrefix(t, "$ ")
			prompted = prompted || command
			output := prompted && !command && !continued
			continued = (command || continued) && strings.HasSuffix(t, "\\")
			out[t] = codeLine{width: utf8.RuneCountInString(strings.ReplaceAll(l, "\t", "    ")), output: output}
		}
	}
	return out
}

// Every man page `hab-gc docs` writes, rendered by groff
// as man(1) does at 80 columns, draws no warning (troff's "table wider than
// line width"), has no line wider than 80 columns, and shows each line of
// its page's code blocks verbatim, on a line of its own (go-md2man had
// refilled them into paragraphs, dropping the "#" of a TOML comment, and
// run tables to 919 columns).
func TestManPagesRenderAt80Columns(t *testing.T) {
	t.Parallel()
	groff := testtool.Need(t, "groff", "groff-base")
	dir := testtool.TempDir(t)
	var stdout, stderr bytes.Buffer
	if code := execute([]string{"docs", "--format", "man", dir}, &stdout, &stderr, noEnv); code != exitOK {
		t.Fatalf("docs: exit %d: %s", code, stderr.String())
	}
	pages, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no man pages: %v", err)
	}
	topics := map[string]docs.Topic{}
	for _, tp := range docs.Topics() {
		topics["hab-gc-"+tp.Name+".1"] = tp
	}
	usages, examples := flagUsages(newRootCmd(io.Discard, io.Discard, noEnv))
	for _, page := range pages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			// man(1)'s pipeline for a page: tbl, then troff with the man
			// macros, for a UTF-8 terminal 80 columns wide; -ww: every
			// warning.
			cmd := exec.Command(groff, "-k", "-t", "-man", "-Tutf8", "-ww", "-rLL=80n", "-rLT=80n", "-P-cbou", page)
			cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Run(); err != nil {
				t.Fatalf("groff: %v: %s", err, errOut.String())
			}
			if errOut.Len() > 0 {
				t.Errorf("groff warns:\n%s", errOut.String())
			}
			tp, isTopic := topics[filepath.Base(page)]
			code := codeLines(tp.Markdown)
			text := out.String()
			rendered := map[string]bool{}
			for i, l := range strings.Split(text, "\n") {
				if n := utf8.RuneCountInString(l); n > 80 {
					// A program's output after a "$ " prompt stays as
					// it writes it (logged); everything else fits.
					if c, ok := code[strings.TrimSpace(l)]; ok && c.output {
						t.Logf("output line %d is %d columns wide: %q", i+1, n, l)
					} else {
						t.Errorf("line %d is %d columns wide: %q", i+1, n, l)
					}
				}
				rendered[strings.TrimSpace(l)] = true
			}
			// Every flag's help, as its page shows it: an example such
			// as 'core/postgresql@>=11 <12' must not lose "<12'" to the
			// renderer reading it as a tag.
			folded := foldRendered(text)
			for _, u := range usages[filepath.Base(page)] {
				if !strings.Contains(folded, foldRendered(u)) {
					t.Errorf("flag help not rendered as written: %q", u)
				}
			}
			for _, l := range examples[filepath.Base(page)] {
				if !rendered[l] {
					t.Errorf("example not rendered verbatim on a line of its own: %q", l)
				}
			}
			if !isTopic {
				return
			}
			for l := range code {
				if !rendered[l] {
					t.Errorf("code line not rendered verbatim on a line of its own: %q", l)
				}
			}
		})
	}
}

// flagUsages maps each command's man page name (hab-gc-run.1) to the help
// texts of its flags, and to the lines of its examples.
func flagUsages(root *cobra.Command) (out, examples map[string][]string) {
	out, examples = map[string][]string{}, map[string][]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		page := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		for _, l := range strings.Split(c.Example, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				examples[page] = append(examples[page], l)
			}
		}
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Deprecated == "" {
				out[page] = append(out[page], f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out, examples
}

// foldRendered drops what rendering may change without changing the
// text: white space (refilled lines), hyphens (groff's hyphenation, and
// its U+2010 for a dash), the backquotes of a flag's value name and the
// typographic quotes groff may print.
func foldRendered(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r), r == '-', r == '\u2010', r == '\u2011', r == '`':
			return -1
		case r == '\u2018' || r == '\u2019':
			return '\''
		case r == '\u201c' || r == '\u201d':
			return '"'
		}
		return r
	}, s)
}
