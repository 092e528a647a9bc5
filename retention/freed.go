package retention

import (
	"slices"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// The freed-dependency rule (Policy.FreeDeps, and ServicesOnly, the
// Supervisor's purge): keep-latest counts what a package is for, not
// what it is needed for. A release that is kept only by its package's
// count, and that is there only as a dependency, is kept by need alone.
//
// In a limited plan (Only, ServicesOnly) that is the Supervisor's rule
// (habitat-sh/habitat components/hab/src/command/pkg/uninstall/
// uninstall_impl.rs, uninstall_many): each dependency of a removed
// release that nothing outside the removal needs goes too, whatever its
// own package's count; a package whose only release it was loses it.
// Store-wide, the newest release of each package stays by count (a tool
// installed by hand that a package also needs is not lost), and the
// older releases of a package that other packages need are kept only
// while something kept needs them: old dependency copies that nothing
// uses go.
//
// Only the count is taken away: every other root (a loaded service, a
// binlink, a pin, a process, a lease, an install in progress, min-age,
// Habitat's own packages, an uninstall hook) still keeps what it keeps.

// freesDeps reports whether the plan applies the freed-dependency rule.
func (p *Plan) freesDeps() bool {
	return (p.Policy.FreeDeps || p.Policy.ServicesOnly) && !p.Policy.NoDeps
}

// countOnly reports whether r is a root only because of its package's
// count (CodeLatest), so that the freed-dependency rule may drop it.
func (p *Plan) countOnly(r pkgstore.Ref) bool {
	reasons := p.rootOf[r]
	if len(reasons) == 0 {
		return false
	}
	for _, rr := range reasons {
		if rr.Code != CodeLatest {
			return false
		}
	}
	return true
}

// freeDeps applies the freed-dependency rule to the plan's roots and
// marks again. It runs before the scope is applied and before the
// uninstall-hook roots are added (a freed dependency that is its
// package's last release and ships an uninstall hook is still kept).
func (p *Plan) freeDeps() {
	var drop []pkgstore.Ref
	if p.limited() {
		var removed []pkgstore.Ref
		for _, r := range p.Inventory.Releases {
			if !p.reach.Reached(r.Ref) && p.inScope(r.Ident) {
				removed = append(removed, r.Ref)
			}
		}
		for _, d := range p.Graph.Closure(removed...) {
			if !p.inScope(p.Inventory.Ident(d)) && p.countOnly(d) {
				drop = append(drop, d)
			}
		}
	} else {
		p.eachPackage(func(rels []*pkgstore.Release) {
			if len(rels) < 2 || !p.neededByOtherPackage(rels) {
				return
			}
			for _, r := range rels[:len(rels)-1] { // the newest stays by count
				if p.countOnly(r.Ref) {
					drop = append(drop, r.Ref)
				}
			}
		})
	}
	if len(drop) == 0 {
		return
	}
	saved := make(map[pkgstore.Ref][]Reason, len(drop))
	for _, d := range drop {
		saved[d] = p.rootOf[d]
		delete(p.rootOf, d)
	}
	reach := p.Graph.Reach(p.rootList())
	// Nothing the plan may remove was kept only through a dropped
	// release (a scope release that a freed dependency needs): if so,
	// leave the count as it was rather than reason in circles.
	for _, r := range p.Inventory.Releases {
		if p.reach.Reached(r.Ref) && !reach.Reached(r.Ref) && p.inScope(r.Ident) && !slices.Contains(drop, r.Ref) && p.limited() {
			for d, rs := range saved {
				p.rootOf[d] = rs
			}
			return
		}
	}
	p.reach = reach
	if !p.limited() {
		p.unused = map[pkgstore.Ref]bool{}
		for _, d := range drop {
			p.unused[d] = true
		}
	}
}

// neededByOtherPackage reports whether a release of another package
// needs one of rels (the releases of one package).
func (p *Plan) neededByOtherPackage(rels []*pkgstore.Release) bool {
	pkg := rels[0].Ident.Package()
	for _, r := range rels {
		for _, d := range p.Graph.Dependents(r.Ref) {
			if p.Inventory.Ident(d).Package() != pkg {
				return true
			}
		}
	}
	return false
}
