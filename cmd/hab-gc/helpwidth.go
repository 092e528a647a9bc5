package main

import (
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/hab-gc/hab-gc/internal/display"
)

// helpWidth is the width help is laid out in: COLUMNS when it is set
// (as man and less read it), else the terminal's when w is one, else 80.
func helpWidth(w io.Writer, lookup func(string) (string, bool)) int {
	if v, ok := lookup("COLUMNS"); ok {
		if cols, err := strconv.Atoi(v); err == nil && cols > 0 {
			return cols
		}
	}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

// reflow fills a command's long help to w columns: the lines of a
// paragraph (unindented, up to a blank or indented line) are joined and
// filled; an indented item (a line and the more indented lines that
// continue it, as the exit codes' list) is left as written when it fits,
// else joined and filled under its own text.
func reflow(text string, w int) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); {
		ind, j := indentOf(lines[i]), i+1
		switch {
		case strings.TrimSpace(lines[i]) == "":
			out = append(out, lines[i])
		case ind == 0:
			for j < len(lines) && strings.TrimSpace(lines[j]) != "" && indentOf(lines[j]) == 0 {
				j++
			}
			out = append(out, display.Fill(strings.Join(lines[i:j], " "), w, "", "")...)
		default:
			for j < len(lines) && strings.TrimSpace(lines[j]) != "" && indentOf(lines[j]) > ind {
				j++
			}
			item := lines[i:j]
			if !fits(item, w) {
				hang := hangOf(lines[i], w)
				if len(item) > 1 {
					hang = indentOf(item[1])
				}
				joined := strings.TrimRight(lines[i], " ")
				for _, l := range item[1:] {
					joined += " " + strings.TrimSpace(l)
				}
				item = fillHanging(joined, w, hang)
			}
			out = append(out, item...)
		}
		i = j
	}
	return strings.Join(out, "\n")
}

// fitLines fills each line of rendered help wider than w under its own
// text: a flag's or command's description under the column it starts in.
func fitLines(text string, w int) string {
	lines := strings.Split(text, "\n")
	var out []string
	for _, l := range lines {
		if textWidth(l) <= w {
			out = append(out, l)
			continue
		}
		out = append(out, fillHanging(l, w, hangOf(l, w))...)
	}
	return strings.Join(out, "\n")
}

// fillHanging fills line to w columns, its first hang columns (indent and
// a flag's or a list item's name) kept and the rest filled under them, or
// less deep where a word (a path) would not fit there.
func fillHanging(line string, w, hang int) []string {
	deep := hang
	if hang == indentOf(line) {
		deep += 2 // no name column: the continuation a little deeper
	}
	for _, word := range strings.Fields(line[hang:]) {
		deep = max(min(deep, w-textWidth(word)), indentOf(line)+2)
	}
	return display.Fill(line[hang:], w, line[:hang], strings.Repeat(" ", deep))
}

// hangOf is the column a line's description starts in: after the first
// run of two or more blanks past its indent (a flag's or a command's
// name, "3  " of an exit code), when that leaves room for some 30
// columns of text; else its indent.
func hangOf(line string, w int) int {
	ind := indentOf(line)
	if gap := strings.Index(line[ind:], "  "); gap > 0 {
		col := ind + gap + len(line[ind+gap:]) - len(strings.TrimLeft(line[ind+gap:], " "))
		if col <= w-30 {
			return col
		}
	}
	return ind
}

func fits(lines []string, w int) bool {
	for _, l := range lines {
		if textWidth(l) > w {
			return false
		}
	}
	return true
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

func textWidth(s string) int { return utf8.RuneCountInString(s) }
