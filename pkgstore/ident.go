package pkgstore

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

var errInvalidIdent = errors.New("invalid package ident")

// Ident identifies a Habitat package: origin/name[/version[/release]].
type Ident struct {
	Origin  string
	Name    string
	Version string // empty when not given
	Release string // empty when not given
}

// ParseIdent parses a 2 to 4 part ident, each part safe to join into a
// path (no separator, whitespace, control or format character, not "."
// or "..").
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

// ParseFullIdent parses a fully qualified ident, as DEPS lines are.
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

// MustParseIdent is ParseIdent for literals; it panics.
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

// ArchiveName is ORIGIN-NAME-VERSION-RELEASE-TARGET.hart (ident.rs
// archive_name_impl).
func (id Ident) ArchiveName(target string) string {
	return id.Origin + "-" + id.Name + "-" + id.Version + "-" + id.Release + "-" + target + ".hart"
}

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

func (id Ident) FullyQualified() bool { return id.Version != "" && id.Release != "" }

func (id Ident) Package() Ident { return Ident{Origin: id.Origin, Name: id.Name} }

// Satisfies: each part other gives is id's.
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

func (id Ident) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func (id *Ident) UnmarshalText(b []byte) error {
	v, err := ParseIdent(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
