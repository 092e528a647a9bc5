package retention

import (
	"slices"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// The freed-dependency rule (FreeDeps, ServicesOnly): a release kept only
// by its package's count and there only as a dependency is kept by need
// alone; every other root still keeps what it keeps. In a limited plan it
// is the Supervisor's rule (components/hab/src/command/pkg/uninstall/
// uninstall_impl.rs uninstall_many): a dependency nothing outside the
// removal needs goes too. Store-wide each package's newest stays by count.

// freesDeps reports whether the plan applies the freed-dependency rule.
func (p *Plan) freesDeps() bool {
	return (p.Policy.FreeDeps || p.Policy.ServicesOnly) && !p.Policy.NoDeps
}

// countOnly: r is a root only by its package's count.
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

// freeDeps applies the rule and marks again, before the scope and the
// uninstall-hook roots (which still keep a freed last release).
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
	// A scope release kept only through a dropped one: leave the count.
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
