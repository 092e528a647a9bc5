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

// helpWidth is COLUMNS, else the terminal's width, else 80.
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

// reflow fills a long help's paragraphs to w columns; an indented item
// (with its more indented continuation) is refilled only when too wide.
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

// fitLines fills each line wider than w under its own description.
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

// fillHanging fills line under its first hang columns, less deep where a
// word would not fit.
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

// hangOf is the column after a line's name and two blanks, when that
// leaves some 30 columns; else its indent.
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
