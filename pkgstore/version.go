package pkgstore

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// errIncomparable is returned by habitatCompareVersions where Habitat's own
// comparison fails.
var errIncomparable = errors.New("versions cannot be compared by Habitat's rules")

// splitVersion splits v as Habitat's ([\d.]+)(.+)? does (Rust's \d takes
// Unicode digits; a leading "-" of a longer extension is dropped); ok is
// false without a digit or dot.
func splitVersion(v string) (num, ext string, hasExt, ok bool) {
	start := strings.IndexFunc(v, isVersionNumRune)
	if start < 0 {
		return "", "", false, false
	}
	end := len(v)
	for i, r := range v[start:] {
		if !isVersionNumRune(r) {
			end = start + i
			break
		}
	}
	num, ext = v[start:end], v[end:]
	// Rust's "." does not match "\n".
	if i := strings.IndexByte(ext, '\n'); i >= 0 {
		ext = ext[:i]
	}
	if ext == "" {
		return num, "", false, true
	}
	if len(ext) > 1 && ext[0] == '-' {
		ext = ext[1:]
	}
	return num, ext, true, true
}

func isVersionNumRune(r rune) bool { return r == '.' || unicode.IsDigit(r) }

// versionPart is a numeric part; bad: Habitat cannot parse it as u64.
type versionPart struct {
	n   uint64
	bad bool
}

func parsePart(s string) versionPart {
	if s == "" {
		return versionPart{bad: true}
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return versionPart{bad: true}
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return versionPart{bad: true}
	}
	return versionPart{n: n}
}

// habitatCompareVersions is Habitat's version_sort step for step, lazily:
// "1.0." < "2.0" is decided, "1.0." against "1.0" is errIncomparable.
func habitatCompareVersions(a, b string) (int, error) {
	c, decided := compareVersionParts(a, b)
	if !decided {
		return 0, fmt.Errorf("%w: %q and %q", errIncomparable, a, b)
	}
	return c, nil
}

// compareVersionParts returns Habitat's answer and true, or, where Habitat
// fails, hab-gc's deterministic fallback and false.
func compareVersionParts(a, b string) (int, bool) {
	an, aext, ahas, aok := splitVersion(a)
	bn, bext, bhas, bok := splitVersion(b)
	if !aok || !bok {
		// Fallback: no numeric part sorts first; two compare as strings.
		switch {
		case !aok && !bok:
			return strings.Compare(a, b), false
		case !aok:
			return -1, false
		default:
			return 1, false
		}
	}
	decided := true
	fallback := 0
	for an != "" || bn != "" {
		var as, bs string
		var aExh, bExh bool
		as, an, aExh = nextPart(an)
		bs, bn, bExh = nextPart(bn)
		if aExh && bExh {
			break
		}
		ap, bp := versionPart{}, versionPart{}
		if !aExh {
			ap = parsePart(as)
		}
		if !bExh {
			bp = parsePart(bs)
		}
		if ap.bad || bp.bad {
			// Habitat fails here; an unparseable part sorts first.
			decided = false
			switch {
			case ap.bad && bp.bad:
				if c := strings.Compare(as, bs); c != 0 && fallback == 0 {
					fallback = c
				}
				continue
			case ap.bad:
				if fallback == 0 {
					fallback = -1
				}
				continue
			default:
				if fallback == 0 {
					fallback = 1
				}
				continue
			}
		}
		if c := cmp.Compare(ap.n, bp.n); c != 0 {
			if decided {
				return c, true
			}
			if fallback == 0 {
				fallback = c
			}
		}
	}
	if !decided {
		if fallback != 0 {
			return fallback, false
		}
		return compareExt(aext, ahas, bext, bhas), false
	}
	return compareExt(aext, ahas, bext, bhas), true
}

// nextPart pops the next part of a numeric run; a trailing "." yields a
// final empty part, as Rust's split does.
func nextPart(s string) (part, rest string, exhausted bool) {
	if s == "" {
		return "", "", true
	}
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return s, "", false
	}
	rest = s[i+1:]
	if rest == "" {
		return s[:i], emptyTail, false
	}
	return s[:i], rest, false
}

// emptyTail stands for a trailing empty part; no numeric run holds it.
const emptyTail = "\x00"

func compareExt(aext string, ahas bool, bext string, bhas bool) int {
	switch {
	case ahas && !bhas:
		return -1
	case !ahas && bhas:
		return 1
	case !ahas && !bhas:
		return 0
	}
	return strings.Compare(aext, bext)
}

// compareVersions is a total order that agrees with Habitat wherever its
// comparison succeeds; elsewhere what Habitat cannot parse sorts first.
// Versions Habitat deems equal ("1.0", "1.0.0") stay equal here.
func compareVersions(a, b string) int {
	c, _ := compareVersionParts(a, b)
	return c
}

// Compare orders idents as Habitat decides "latest" (origin, name,
// version, release), then by the version as spelled: a total order, 0 only
// for identical idents.
func Compare(a, b Ident) int {
	if c := strings.Compare(a.Origin, b.Origin); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := compareVersions(a.Version, b.Version); c != 0 {
		return c
	}
	if c := strings.Compare(a.Release, b.Release); c != 0 {
		return c
	}
	return strings.Compare(a.Version, b.Version)
}
