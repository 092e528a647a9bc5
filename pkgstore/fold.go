package pkgstore

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Case-insensitive names (Windows). Habitat joins an ident as written into
// a path (list.rs package_list_for_ident), and Windows opens core\redis
// for Core/Redis: there an ident naming no release exactly names the one
// whose folded key is its own. Two releases differing only in case (a
// case-sensitive directory) are both kept by a line naming either.

// foldKey folds each character to the least of its simple case folding
// orbit: at least as much as Windows' upcase table (matching more keeps
// more).
func foldKey(id Ident) string {
	var b strings.Builder
	b.Grow(len(id.Origin) + len(id.Name) + len(id.Version) + len(id.Release) + 3)
	for i, p := range [4]string{id.Origin, id.Name, id.Version, id.Release} {
		if i > 0 {
			b.WriteByte('/')
		}
		foldInto(&b, p)
	}
	return b.String()
}

func foldInto(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(foldRune(r))
		i += n
	}
}

func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

func foldedReleases(releases []*Release) map[string][]*Release {
	if !caseInsensitive {
		return nil
	}
	m := make(map[string][]*Release, len(releases))
	for _, r := range releases {
		k := foldKey(r.Ident)
		m[k] = append(m[k], r)
	}
	return m
}

// installedFolded is the one release id names in another case, or nil.
func (inv *Inventory) installedFolded(id Ident) *Release {
	if inv.folded == nil || !id.FullyQualified() {
		return nil
	}
	if rs := inv.folded[foldKey(id)]; len(rs) == 1 {
		return rs[0]
	}
	return nil
}

// satisfyingFolded is what satisfies pattern without regard to case.
func (inv *Inventory) satisfyingFolded(pattern Ident) []*Release {
	if inv.folded == nil {
		return nil
	}
	fp := [4]string{foldPart(pattern.Origin), foldPart(pattern.Name), foldPart(pattern.Version), foldPart(pattern.Release)}
	var out []*Release
	for _, r := range inv.Releases {
		if foldPart(r.Ident.Origin) != fp[0] || foldPart(r.Ident.Name) != fp[1] ||
			(fp[2] != "" && foldPart(r.Ident.Version) != fp[2]) || (fp[3] != "" && foldPart(r.Ident.Release) != fp[3]) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func foldPart(s string) string {
	var b strings.Builder
	foldInto(&b, s)
	return b.String()
}

// foldDeps points a dependency Ref naming no release exactly at those it
// names in another case (slices replaced, never written to).
func foldDeps(inv *Inventory) {
	if inv.folded == nil {
		return
	}
	to := map[Ref][]Ref{}
	for _, a := range inv.absent {
		for _, r := range inv.folded[foldKey(a.id)] {
			to[a.ref] = append(to[a.ref], r.Ref)
		}
	}
	if len(to) == 0 {
		return
	}
	swap := func(deps []Ref) []Ref {
		if !slices.ContainsFunc(deps, func(d Ref) bool { return to[d] != nil }) {
			return deps
		}
		out := make([]Ref, 0, len(deps)+1)
		for _, d := range deps {
			if rs := to[d]; rs != nil {
				out = append(out, rs...)
			} else {
				out = append(out, d)
			}
		}
		return out
	}
	for _, r := range inv.Releases {
		r.Deps, r.TDeps = swap(r.Deps), swap(r.TDeps)
	}
}

// SatisfiesAnyCase is Satisfies, without regard to case where names are
// case-insensitive (Windows). It is for what protects, never alone for
// what may be removed.
func (id Ident) SatisfiesAnyCase(other Ident) bool {
	if id.Satisfies(other) {
		return true
	}
	if !caseInsensitive {
		return false
	}
	same := func(a, b string) bool { return a == "" || b == "" || foldString(a) == foldString(b) }
	return foldString(id.Origin) == foldString(other.Origin) && foldString(id.Name) == foldString(other.Name) &&
		same(id.Version, other.Version) && same(id.Release, other.Release)
}

func foldString(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	foldInto(&b, s)
	return b.String()
}
