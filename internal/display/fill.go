package display

import (
	"strings"
	"unicode/utf8"
)

// Fill wraps text at w columns, a longer word on a line of its own.
func Fill(text string, w int, first, rest string) []string {
	var out []string
	line, empty := first, true
	for _, word := range strings.Fields(text) {
		if !empty && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > w {
			out = append(out, line)
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	return append(out, line)
}
