package retention

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Names in another case (Windows). Habitat compares idents exactly
// (habitat-sh/habitat components/core/src/package/ident.rs,
// Identifiable::satisfies; nothing in components/core/src/package
// lowercases or compares without regard to case), but it finds a
// package's releases by joining the ident, as given, into a path
// (components/core/src/package/list.rs package_list_for_ident; fs.rs
// pkg_install_path), which `hab pkg uninstall --keep-latest N IDENT` and
// the Supervisor's uninstall_all_but_latest (components/sup/src/util/
// pkg.rs) list with (components/hab/src/command/pkg/list.rs
// package_list). On Windows' file systems that path opens core\redis for
// CORE\Redis: there `hab pkg uninstall CORE/Redis` lists core\redis's
// releases, named with the spelling given (list.rs walk_versions takes
// the ident's origin and name, the directory's version and release).
// Habitat then looks each up exactly in its graph of the store, read in
// the directories' spelling (components/hab/src/command/pkg/uninstall/
// uninstall_impl.rs uninstall_many: count_rdeps of CORE/Redis/... is None,
// "wasn't in graph"), and does not remove it: hab-gc removes what the
// listing names, the directory Windows opens, which is what the operator
// named.
//
// So, where the store folds case (the Inventory does, Windows:
// pkgstore/fold.go), an Only entry, a loaded service's spec ident (for
// ServicesOnly) and a KeepLatestFor entry that name no installed release
// exactly name the releases Windows opens for them, in the store's
// spelling (storeSpelling):
//   - a pin and a lease protect, and match in any case already
//     (Exclude.match, matchingReleases);
//   - Only limits removals: `--only CORE/Redis` limits them to
//     core/redis, the directory Windows opens for it, as the operator
//     meant, rather than to nothing; an archive of the cache whose IDENT
//     is in yet another case than the store's is outside the scope, and
//     kept (Protects);
//   - a KeepLatestFor count for CORE/redis keeps that many of core/redis:
//     the general count, smaller, would remove what the operator asked
//     to keep. An entry that names the package exactly comes first
//     (as Inventory.Installed prefers the exact spelling); of several
//     that name it in other cases only, the largest count applies.
//
// Two directories whose names differ only in case (core\redis and
// Core\Redis) can only be in a directory made case-sensitive, where
// Windows opens the exact name alone: a third spelling (CORE/REDIS) then
// names neither. Such an Only entry limits removals to nothing of them
// (and is warned about, WarnUnmatchedOnly); such a count applies to each
// where it keeps more than that package's count would (when in doubt,
// keep). Where names differ in case are different directories (Linux),
// nothing is folded: `--only CORE/redis` names nothing in core/redis,
// and is warned about, as before.

// spelled is an entry of the policy as the store spells it.
type spelled struct {
	// as is the entry in the store's spelling: the entry as written when
	// a release satisfies it exactly, or when none satisfies it in any
	// case; else the one spelling of the releases that satisfy it in
	// another case (in the fields the entry has).
	as pkgstore.Ident
	// others are the spellings of an entry that names releases in several
	// spellings, none its own (a case-sensitive directory); as is then
	// the entry as written, which names none of them.
	others []pkgstore.Ident
}

// storeSpelling spells pat as the store does (see spelled). Where the
// inventory does not fold case, Satisfying finds only what satisfies pat
// exactly, and pat is its own spelling.
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

// storeSpellings is storeSpelling of each of pats, in order.
func storeSpellings(inv *pkgstore.Inventory, pats []pkgstore.Ident) []spelled {
	out := make([]spelled, len(pats))
	for i, p := range pats {
		out[i] = storeSpelling(inv, p)
	}
	return out
}

// spellingsOf is the store's spellings of entries (spelled.as).
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
	// exact: the entry names its package as the store does.
	exact bool
}

// spellCounts spells each KeepLatestFor entry of pol as inv does.
func spellCounts(inv *pkgstore.Inventory, pol Policy) []spelledCount {
	out := make([]spelledCount, len(pol.KeepLatestFor))
	for i, c := range pol.KeepLatestFor {
		s := storeSpelling(inv, c.Package)
		out[i] = spelledCount{PackageCount: c, spelled: s, exact: s.as == c.Package && s.others == nil}
	}
	return out
}

// keepFor is how many releases of id's package are kept by count, and
// where that count comes from when it is not KeepLatest ("" then): a
// KeepLatestFor entry (in any case where the store folds it: see above),
// or self-keep-latest for Habitat's own packages.
func (p *Plan) keepFor(id pkgstore.Ident) (n int, from string) {
	if IsHabitatPackage(id) {
		return p.Policy.selfKeep(), ""
	}
	of := func(pkg pkgstore.Ident) bool { return pkg.Origin == id.Origin && pkg.Name == id.Name }
	// An entry that names the package exactly decides; else the largest
	// of those that name it in another case.
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
	// An entry whose spelling names several directories (a case-sensitive
	// one) keeps at least as many of each.
	for _, c := range p.counts {
		if c.others != nil && slices.ContainsFunc(c.others, of) && max(c.Keep, 0) > n {
			n, from = max(c.Keep, 0), "keep-latest-for "+c.String()+", which names "+spellingList(c.others)
		}
	}
	return n, from
}

// spellingList joins idents for a text: "core/redis, Core/Redis".
func spellingList(ids []pkgstore.Ident) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}

// onlyWarning is the warning for an Only entry that matches no
// installed release, in any spelling the store opens for it.
func onlyWarning(o pkgstore.Ident, s spelled) Warning {
	text := fmt.Sprintf("only %q matches no installed release, so this run removes nothing of it", o.String())
	if s.others != nil {
		text = fmt.Sprintf("only %q names releases in several spellings (%s), in a case-sensitive directory where Windows opens the exact name alone, so this run removes nothing of them", o.String(), spellingList(s.others))
	}
	return Warning{Kind: WarnUnmatchedOnly, Pin: o.String(), Text: text}
}
