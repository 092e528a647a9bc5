package retention

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Names in another case (Windows). Habitat compares idents exactly
// (components/core/src/package/ident.rs) but lists a package's releases by
// joining the ident into a path (package/list.rs package_list_for_ident),
// which on Windows opens core\redis for CORE\Redis. So where the store
// folds case, an Only entry, a service's spec ident (ServicesOnly) and a
// KeepLatestFor entry that name no release exactly name those Windows
// opens for them, in the store's spelling. A pin and a lease match in any
// case already. Of several counts naming one package, an exact one decides,
// else the largest. A spelling that names several directories (a
// case-sensitive one) limits Only to none of them (warned) and keeps at
// least its count of each. Linux folds nothing.

// spelled is an entry of the policy as the store spells it.
type spelled struct {
	as pkgstore.Ident
	// others: the spellings of releases the entry names in several
	// spellings, none its own; as is then the entry as written.
	others []pkgstore.Ident
}

// storeSpelling spells pat as the store does.
func storeSpelling(inv *pkgstore.Inventory, pat pkgstore.Ident) spelled {
	rs := inv.Satisfying(pat)
	if len(rs) == 0 || slices.ContainsFunc(rs, func(r *pkgstore.Release) bool { return r.Ident.Satisfies(pat) }) {
		return spelled{as: pat}
	}
	var ids []pkgstore.Ident
	for _, r := range rs {
		id := pkgstore.Ident{Origin: r.Ident.Origin, Name: r.Ident.Name}
		if pat.Version != "" {
			id.Version = r.Ident.Version
		}
		if pat.Release != "" {
			id.Release = r.Ident.Release
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 1 {
		return spelled{as: ids[0]}
	}
	return spelled{as: pat, others: ids}
}

func storeSpellings(inv *pkgstore.Inventory, pats []pkgstore.Ident) []spelled {
	out := make([]spelled, len(pats))
	for i, p := range pats {
		out[i] = storeSpelling(inv, p)
	}
	return out
}

func spellingsOf(entries []spelled) []pkgstore.Ident {
	out := make([]pkgstore.Ident, len(entries))
	for i, e := range entries {
		out[i] = e.as
	}
	return out
}

// spelledCount is a KeepLatestFor entry as the store spells its package.
type spelledCount struct {
	PackageCount
	spelled
	exact bool // names its package as the store does
}

func spellCounts(inv *pkgstore.Inventory, pol Policy) []spelledCount {
	out := make([]spelledCount, len(pol.KeepLatestFor))
	for i, c := range pol.KeepLatestFor {
		s := storeSpelling(inv, c.Package)
		out[i] = spelledCount{PackageCount: c, spelled: s, exact: s.as == c.Package && s.others == nil}
	}
	return out
}

// keepFor is how many of id's package are kept by count, and from where
// when not KeepLatest.
func (p *Plan) keepFor(id pkgstore.Ident) (n int, from string) {
	if IsHabitatPackage(id) {
		return p.Policy.selfKeep(), ""
	}
	of := func(pkg pkgstore.Ident) bool { return pkg.Origin == id.Origin && pkg.Name == id.Name }
	for _, c := range p.counts {
		if c.exact && of(c.as) {
			return max(c.Keep, 0), "keep-latest-for " + c.String()
		}
	}
	n, found := p.Policy.keep(), false
	for _, c := range p.counts {
		if !c.exact && c.others == nil && of(c.as) && (!found || max(c.Keep, 0) > n) {
			n, from, found = max(c.Keep, 0), "keep-latest-for "+c.String(), true
		}
	}
	for _, c := range p.counts {
		if c.others != nil && slices.ContainsFunc(c.others, of) && max(c.Keep, 0) > n {
			n, from = max(c.Keep, 0), "keep-latest-for "+c.String()+", which names "+spellingList(c.others)
		}
	}
	return n, from
}

func spellingList(ids []pkgstore.Ident) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}

func onlyWarning(o pkgstore.Ident, s spelled) Warning {
	text := fmt.Sprintf("only %q matches no installed release, so this run removes nothing of it", o.String())
	if s.others != nil {
		text = fmt.Sprintf("only %q names releases in several spellings (%s), in a case-sensitive directory where Windows opens the exact name alone, so this run removes nothing of them", o.String(), spellingList(s.others))
	}
	return Warning{Kind: WarnUnmatchedOnly, Pin: o.String(), Text: text}
}
