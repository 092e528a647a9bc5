package pkgstore

import (
	"strings"
	"testing"
	"unicode"
)

// TestFoldKey: spellings Windows takes for one name have one key; names
// Windows keeps apart have two.
func TestFoldKey(t *testing.T) {
	same := [][2]string{
		{"core/redis/7.0.0/20210101000000", "Core/Redis/7.0.0/20210101000000"},
		{"core/redis/7.0.0-rc1/20210101000000", "CORE/REDIS/7.0.0-RC1/20210101000000"},
		{"core/kafka/1/2", "core/\u212Aafka/1/2"}, // the Kelvin sign
		{"core/ssl/1/2", "core/s\u017Fl/1/2"},     // the long s
		{"ünï/çødé/1/2", "ÜNÏ/ÇØDÉ/1/2"},
		{"core/σίγμα/1/2", "core/ΣΊΓΜΑ/1/2"},
	}
	for _, c := range same {
		a, b := MustParseIdent(c[0]), MustParseIdent(c[1])
		if foldKey(a) != foldKey(b) {
			t.Errorf("foldKey(%s) = %q, foldKey(%s) = %q, want one key", a, foldKey(a), b, foldKey(b))
		}
	}
	apart := [][2]string{
		{"core/redis/7.0.0/20210101000000", "core/redis/7.0.1/20210101000000"},
		{"core/re/dis/1", "core/red/is/1"}, // the separator is kept
		{"core/a-b/1/2", "core/a_b/1/2"},
		{"core/ss/1/2", "core/ß/1/2"}, // simple folding: ß is not ss
	}
	for _, c := range apart {
		a, b := MustParseIdent(c[0]), MustParseIdent(c[1])
		if foldKey(a) == foldKey(b) {
			t.Errorf("foldKey(%s) = foldKey(%s) = %q, want two keys", a, b, foldKey(a))
		}
	}
}

// TestFoldRuneOrbit: every rune's key is that of each rune of its orbit,
// and the ASCII fast path agrees with foldRune.
func TestFoldRuneOrbit(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		k := foldPart(string(r))
		if k != string(foldRune(r)) {
			t.Fatalf("%U: key %q, foldRune %q", r, k, foldRune(r))
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if kf := foldPart(string(f)); kf != k {
				t.Fatalf("%U and %U fold together but have keys %q and %q", r, f, k, kf)
			}
		}
		if r < 0x80 && strings.ToUpper(string(r)) != k {
			t.Fatalf("%U: ASCII key %q, want its capital", r, k)
		}
	}
}
