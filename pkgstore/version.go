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

// splitVersion splits v as Habitat does with the first match of the pattern
// ([\d.]+)(.+)? : the numeric run (decimal digits and dots, Unicode digits
// included, as in Rust's regex \d) and the extension (the rest; a leading
// "-" is dropped when the extension is longer than one byte). ok is false
// when v has no digit or dot at all.
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
	// Rust's regex "." does not match "\n"; idents never hold one, but stay
	// exact: the extension stops at the first newline.
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

// versionPart is one dot-separated numeric part; bad marks a part that
// Habitat cannot parse as u64 (empty, overflow, non-ASCII digits).
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

// habitatCompareVersions is Habitat's version_sort, step for step: it
// returns -1, 0 or +1, or errIncomparable where Habitat's comparison fails
// (no numeric part; an empty, overflowing or non-ASCII numeric part reached
// before the two versions differ). Habitat compares parts lazily, so
// "1.0." < "2.0" is decided, while "1.0." against "1.0" is not.
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
		// Fallback: a version without any numeric part sorts below every
		// version that has one; two such versions compare as strings.
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
			// Habitat stops here with an error. hab-gc goes on with a
			// fallback that keeps the order total: an unparseable part sorts
			// below any number, two of them compare as strings.
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

// nextPart pops the next dot-separated part of a numeric run. exhausted is
// true when s was already empty; a run ending in "." yields a final empty
// part, as Rust's split does.
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
		// "1." splits into "1" and "": signal the empty tail with a
		// sentinel the caller sees as one more (empty) part.
		return s[:i], emptyTail, false
	}
	return s[:i], rest, false
}

// emptyTail stands for a trailing empty part: it is not a valid numeric run
// character, so it never collides with real input.
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

// compareVersions is a total order on version strings that agrees with
// Habitat wherever Habitat's comparison succeeds (see
// habitatCompareVersions). Where Habitat fails, hab-gc decides
// deterministically:
//
//   - a version with no digit or dot sorts below every version that has one;
//     two such versions compare as byte strings;
//   - an unparseable numeric part (empty as in "1..2" or "1.0.", beyond
//     2^64-1, or made of non-ASCII digits) sorts below any number, and two
//     unparseable parts compare as byte strings;
//   - versions that are still equal (such as "1.0" and "1.0.0", which
//     Habitat treats as the same version) are left equal here; Compare
//     breaks that tie by release first, as Habitat does, then by the raw
//     version string.
func compareVersions(a, b string) int {
	c, _ := compareVersionParts(a, b)
	return c
}

// Compare orders fully qualified idents the way Habitat decides "latest":
// origin, then name (as byte strings), then version (compareVersions), then
// release (as byte strings). Idents that Habitat deems equal but that
// differ in spelling ("1.0" against "1.0.0" with the same release) are
// ordered by the raw version string, so Compare is a total order that
// returns 0 only for identical idents, and sort.Slice/slices.SortFunc can
// use it.
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
