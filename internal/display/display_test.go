package display

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"core/redis/6.2.6/20210603120000", "core/redis/6.2.6/20210603120000"},
		{"hab/pkgs/core/a\u202eb", `hab/pkgs/core/a\u{202e}b`},
		{"\ufeffcore/x", `\u{feff}core/x`},
		{"a\u200bb", `a\u{200b}b`},
		{"a\u2066b\u2069", `a\u{2066}b\u{2069}`},
		{"a\u00adb", `a\u{ad}b`},
		{"a\x1b[2Jb", `a\u{1b}[2Jb`},
		{"a\rb", `a\u{d}b`},
		{"a\u00a0b", `a\u{a0}b`},
		{"a\u2028b", `a\u{2028}b`},
		{"bad\xffname", `bad\xffname`},
		{"line one\n\tline two", "line one\n\tline two"},
		{"ünïcödé ✓ 漢字", "ünïcödé ✓ 漢字"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriterKeepsSplitCharactersWhole(t *testing.T) {
	var b strings.Builder
	w := Writer(&b)
	in := []byte("x\u202ey ✓")
	for i := range in {
		w.Write(in[i : i+1])
	}
	if got, want := b.String(), `x\u{202e}y ✓`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"core/redis", "a\u202eb", "bad\xff", "\x1b[0m", "a\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		for _, r := range out {
			if unsafe(r) || r == 0xfffd && !strings.ContainsRune(s, 0xfffd) {
				t.Fatalf("Escape(%q) = %q still holds %U", s, out, r)
			}
		}
		if !strings.ContainsFunc(s, unsafe) && strings.ToValidUTF8(s, "") == s && out != s {
			t.Fatalf("Escape changed a safe string: %q -> %q", s, out)
		}
	})
}
