package pkgstore

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func TestParseIdent(t *testing.T) {
	tests := []struct {
		in   string
		want Ident
	}{
		{"core/redis", Ident{"core", "redis", "", ""}},
		{"core/redis/4.0.14", Ident{"core", "redis", "4.0.14", ""}},
		{"core/redis/4.0.14/20200101000000", Ident{"core", "redis", "4.0.14", "20200101000000"}},
		{"my-origin/name_with.dots/1.0.0-rc.1+build/1", Ident{"my-origin", "name_with.dots", "1.0.0-rc.1+build", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseIdent(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func TestParseIdentRejects(t *testing.T) {
	tests := []struct {
		in, why string
	}{
		{"", "at least origin/name"},
		{"core", "at least origin/name"},
		{"core/redis/1/2/3", "5 parts"},
		{"core//1.0", "name is empty"},
		{"/redis", "origin is empty"},
		{"core/redis/", "version is empty"},
		{"core/redis/1.0/", "release is empty"},
		{"core/re dis", "whitespace"},
		{"core/redis\t/1", "whitespace"},
		{"core/redis/1.0\n/1", "whitespace"},
		{"core/../1.0/1", `traverse the path ("..")`},
		{"./redis", `traverse the path (".")`},
		{"core/redis/1.0/../../x", "traverse"},
		{"core/re\\dis", "path separator"},
		{"core/re\x00dis", "NUL"},
		{"core/re\x7fdis", "control character"},
		{"core/re\xffdis", "not valid UTF-8"},
		{"\ufeffcore/redis", "invisible format character (U+FEFF)"},
		{"core/re\u200bdis", "invisible format character (U+200B)"},
		{"core/redis/\u202e1.0", "invisible format character (U+202E)"},
		{"core/redis/1.0/\u20662", "invisible format character (U+2066)"},
		{"core/re\u00addis", "invisible format character (U+00AD)"},
		{"core/re\U000e0041dis", "invisible format character (U+E0041)"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseIdent(tt.in)
			if !errors.Is(err, errInvalidIdent) {
				t.Fatalf("ParseIdent(%q) error = %v, want errInvalidIdent", tt.in, err)
			}
			if !strings.Contains(err.Error(), tt.why) {
				t.Errorf("error %q does not say %q", err, tt.why)
			}
			if !strings.Contains(err.Error(), strconv.Quote(tt.in)) {
				t.Errorf("error %q does not quote the input", err)
			}
		})
	}
}

func TestParseFullIdent(t *testing.T) {
	if _, err := ParseFullIdent("core/redis/1.0"); !errors.Is(err, errInvalidIdent) || !strings.Contains(err.Error(), "not fully qualified") {
		t.Fatalf("got %v", err)
	}
	if _, err := ParseFullIdent("core/redis/1.0/2"); err != nil {
		t.Fatal(err)
	}
}

func TestSatisfies(t *testing.T) {
	rel := MustParseIdent("core/redis/4.0.14/20200101000000")
	tests := []struct {
		pattern string
		want    bool
	}{
		{"core/redis", true},
		{"core/redis/4.0.14", true},
		{"core/redis/4.0.14/20200101000000", true},
		{"core/redis/4.0.14/20200101000001", false},
		{"core/redis/4.0.15", false},
		{"core/redis4", false},
		{"chef/redis", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			if got := rel.Satisfies(MustParseIdent(tt.pattern)); got != tt.want {
				t.Errorf("%s satisfies %s = %v, want %v", rel, tt.pattern, got, tt.want)
			}
		})
	}
}

func FuzzParseIdent(f *testing.F) {
	for _, s := range []string{"core/redis", "core/redis/1.0/2", "a/b/c/d/e", "../x", "core/re dis", "\xff/x", "\ufeffcore/x", "core/\u202eredis"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseIdent(s)
		if err != nil {
			if !errors.Is(err, errInvalidIdent) {
				t.Fatalf("error does not wrap errInvalidIdent: %v", err)
			}
			return
		}
		// A parsed ident round-trips and every part is safe as a path element.
		if id.String() != s {
			t.Fatalf("round trip: %q -> %q", s, id.String())
		}
		for _, p := range []string{id.Origin, id.Name, id.Version, id.Release} {
			if p == "." || p == ".." || strings.ContainsAny(p, "/\\\x00 \t\n") {
				t.Fatalf("unsafe part %q accepted in %q", p, s)
			}
			// Nothing invisible: what is shown is what is matched.
			if i := strings.IndexFunc(p, func(r rune) bool {
				return unicode.Is(unicode.Cf, r) || unicode.IsControl(r) || unicode.IsSpace(r)
			}); i >= 0 {
				t.Fatalf("invisible character in part %q accepted in %q", p, s)
			}
		}
	})
}

func TestKnownTargetsAreValid(t *testing.T) {
	for _, k := range KnownTargets() {
		if !validTarget(k) {
			t.Errorf("%s is known but not valid", k)
		}
	}
	if validTarget("x86_64-plan9") || len(KnownTargets()) != 7 {
		t.Error("target list drifted")
	}
}
