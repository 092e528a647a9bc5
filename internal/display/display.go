package display

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape writes a byte that is not UTF-8 as \xff; a control character but
// newline and tab, a format character (Cf), a line or paragraph separator
// or a space but ' ' as \u{202e}.
func Escape(s string) string {
	i := strings.IndexFunc(s, unsafe)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case unsafe(r):
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t' || r == ' ':
		return false
	case r == utf8.RuneError:
		return false // a literal U+FFFD is visible; invalid bytes are handled apart
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Zs)
}

// Writer escapes what is written to w; a character split across two
// writes is escaped whole.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct {
	w    io.Writer
	tail []byte // an incomplete UTF-8 sequence
}

func (e *writer) Write(p []byte) (int, error) {
	buf := append(e.tail, p...)
	e.tail = nil
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	e.tail = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(e.w, Escape(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}
