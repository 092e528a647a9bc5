package pkgstore

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Case-insensitive names (Windows). Habitat finds a release by joining
// its ident, as written in a DEPS or TDEPS line, a binstub or a spec, into
// a path under the store (habitat-sh/habitat components/core/src/package/
// list.rs package_list_for_ident; fs.rs pkg_install_path), and Windows'
// file systems open core\redis for Core\Redis: there, a line naming
// Core/Redis/7.0.0/20210101000000 names the release in core\redis, and
// had hab-gc taken it for a release not installed, it would have removed
// what the line's release needs. Where names are case-insensitive
// (caseInsensitive: fold_windows.go), an ident that names no installed
// release exactly names the one installed whose folded key is its own;
// elsewhere names differ in case are different directories, and nothing
// is folded.
//
// Two installed releases whose names differ only in case can only be in
// a directory made case-sensitive (fsutil file setCaseSensitiveInfo),
// where Windows opens the exact name alone: a third spelling then names
// neither, so Installed finds neither. What a dependency line names is
// kept all the same: such a line keeps both (when in doubt, keep).

// foldKey is the key of an ident under which every spelling Windows may
// take for the same path is equal: each character folded to the least
// of its Unicode simple case folding orbit (k, K and the Kelvin sign
// are one). Windows compares names through its upcase table, simple
// uppercasing; this folds at least as much (a key that matches more
// keeps more, never less).
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
			// The least of a letter's orbit is its capital (that of k
			// and s, which fold with the Kelvin sign and the long s,
			// too).
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

// foldRune is the least rune of r's simple case folding orbit.
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// foldedReleases indexes the installed releases by foldKey, when names
// are case-insensitive; nil otherwise.
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

// installedFolded is Installed's answer for an ident that names no
// installed release exactly: the one installed release it names in
// another case, or nil (none, or two: see above).
func (inv *Inventory) installedFolded(id Ident) *Release {
	if inv.folded == nil || !id.FullyQualified() {
		return nil
	}
	if rs := inv.folded[foldKey(id)]; len(rs) == 1 {
		return rs[0]
	}
	return nil
}

// satisfyingFolded is Satisfying's answer for a pattern no installed
// release satisfies exactly: those that satisfy it without regard to
// case, as the Supervisor lists them under the pattern's path (list.rs
// package_list_for_ident), oldest first.
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

// foldDeps makes every DEPS and TDEPS Ref of inv's releases that names
// no installed release exactly, but one or more in another case, name
// those instead (the store's own spelling), when names are
// case-insensitive. A release's slices are replaced, never written to.
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

// SatisfiesAnyCase is Satisfies where names differ in case are different
// directories, and, where names are case-insensitive (Windows), Satisfies
// without regard to case: a pin or a lease written Core/Redis names the
// releases in core\redis, as Windows opens that path for it. It is for
// what protects (matching more keeps more), never alone for what may be
// removed: watch passes on the --only entries of a package it matches so,
// and retention then names the store's one directory for each entry, or
// nothing where two directories differ only in case (casefold.go).
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

// foldString is s with each character folded as foldKey folds it.
func foldString(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	foldInto(&b, s)
	return b.String()
}
