package pkgstore

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// errInvalidIdent is wrapped by every error that ParseIdent and
// ParseFullIdent return, so callers can branch with errors.Is.
var errInvalidIdent = errors.New("invalid package ident")

// Ident identifies a Habitat package: origin/name[/version[/release]].
// The zero value is not a valid ident. Idents are comparable with == and
// usable as map keys.
type Ident struct {
	Origin  string
	Name    string
	Version string // empty when not given
	Release string // empty when not given
}

// ParseIdent parses and validates a 2 to 4 part ident such as "core/redis",
// "core/redis/6.2.6" or "core/redis/6.2.6/20210603120000".
//
// Each part must be non-empty, valid UTF-8, free of whitespace, control
// characters, NUL and path separators, and must not be "." or "..": an ident
// is later joined into a path under the store, so nothing in it may move
// that path elsewhere. Nor may it hold an invisible format character
// (Unicode category Cf: a byte order mark, a zero-width space, a
// bidirectional override or isolate, a soft hyphen...): such a character
// makes two different idents look the same on screen, and a DEPS line that
// carries one names no release Habitat installed.
func ParseIdent(s string) (Ident, error) {
	parts := strings.Split(s, "/")
	for _, p := range parts {
		if p == "." || p == ".." {
			return Ident{}, identError(s, fmt.Sprintf("it tries to traverse the path (%q)", p))
		}
	}
	if len(parts) < 2 {
		return Ident{}, identError(s, "it needs at least origin/name")
	}
	if len(parts) > 4 {
		return Ident{}, identError(s, fmt.Sprintf("it has %d parts, at most 4 are allowed (origin/name/version/release)", len(parts)))
	}
	for i, p := range parts {
		if err := checkPart(p); err != "" {
			return Ident{}, identError(s, fmt.Sprintf("its %s %s", [4]string{"origin", "name", "version", "release"}[i], err))
		}
	}
	id := Ident{Origin: parts[0], Name: parts[1]}
	if len(parts) > 2 {
		id.Version = parts[2]
	}
	if len(parts) > 3 {
		id.Release = parts[3]
	}
	return id, nil
}

// ParseFullIdent parses an ident that must be fully qualified
// (origin/name/version/release), as every line of DEPS and TDEPS must be.
func ParseFullIdent(s string) (Ident, error) {
	id, err := ParseIdent(s)
	if err != nil {
		return Ident{}, err
	}
	if !id.FullyQualified() {
		return Ident{}, identError(s, "it is not fully qualified (origin/name/version/release)")
	}
	return id, nil
}

// MustParseIdent is ParseIdent for literals in tests and examples; it
// panics on a malformed ident.
func MustParseIdent(s string) Ident {
	id, err := ParseIdent(s)
	if err != nil {
		panic(err)
	}
	return id
}

func identError(s, why string) error {
	return fmt.Errorf("%w %q: %s", errInvalidIdent, s, why)
}

// checkPart returns why p cannot be an ident part, or "" when it can.
func checkPart(p string) string {
	switch p {
	case "":
		return "is empty"
	case ".", "..":
		return fmt.Sprintf("is %q, which would move the path", p)
	}
	if !utf8.ValidString(p) {
		return "is not valid UTF-8"
	}
	for _, r := range p {
		switch {
		case r == 0:
			return "contains a NUL byte"
		case r == '\\':
			return "contains a path separator"
		case unicode.IsSpace(r):
			return fmt.Sprintf("contains whitespace (%q)", r)
		case unicode.IsControl(r):
			return fmt.Sprintf("contains a control character (%U)", r)
		case unicode.Is(unicode.Cf, r):
			return fmt.Sprintf("contains an invisible format character (%U)", r)
		}
	}
	return ""
}

// ArchiveName is the file name of a fully qualified ident's archive for
// target, ORIGIN-NAME-VERSION-RELEASE-TARGET.hart: the name Habitat looks
// for in the artifact cache (components/core/src/package/ident.rs
// archive_name_impl; install.rs cached_artifact_path).
func (id Ident) ArchiveName(target string) string {
	return id.Origin + "-" + id.Name + "-" + id.Version + "-" + id.Release + "-" + target + ".hart"
}

// String formats the ident as Habitat does: the parts that are set, joined
// with "/".
func (id Ident) String() string {
	switch {
	case id.Version == "":
		return id.Origin + "/" + id.Name
	case id.Release == "":
		return id.Origin + "/" + id.Name + "/" + id.Version
	default:
		return id.Origin + "/" + id.Name + "/" + id.Version + "/" + id.Release
	}
}

// FullyQualified reports whether version and release are both set.
func (id Ident) FullyQualified() bool { return id.Version != "" && id.Release != "" }

// Package returns the origin/name part of the ident.
func (id Ident) Package() Ident { return Ident{Origin: id.Origin, Name: id.Name} }

// Satisfies reports whether id matches other by Habitat's rule: origin and
// name are equal, and version and release are equal wherever both idents
// give one. So every release of core/redis satisfies "core/redis", and
// every release of 4.0.14 satisfies "core/redis/4.0.14".
func (id Ident) Satisfies(other Ident) bool {
	if id.Origin != other.Origin || id.Name != other.Name {
		return false
	}
	if id.Version != "" && other.Version != "" && id.Version != other.Version {
		return false
	}
	if id.Release != "" && other.Release != "" && id.Release != other.Release {
		return false
	}
	return true
}

// MarshalText formats the ident with String, so idents appear as strings in
// JSON and TOML.
func (id Ident) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses an ident with ParseIdent.
func (id *Ident) UnmarshalText(b []byte) error {
	v, err := ParseIdent(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
