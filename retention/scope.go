package retention

import (
	"fmt"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// A plan's scope is what it may remove (Only, ServicesOnly: what satisfies
// one of each), and the dependencies only its removed releases needed.

func (p *Plan) limited() bool { return len(p.Policy.Only) > 0 || p.Policy.ServicesOnly }

// serviceIdents are the loaded services' spec idents as the store spells
// them.
func serviceIdents(inv *pkgstore.Inventory) []pkgstore.Ident {
	var out []pkgstore.Ident
	for _, s := range inv.Services {
		out = append(out, storeSpelling(inv, s.Ident).as)
	}
	return out
}

func (p *Plan) inScope(id pkgstore.Ident) bool {
	if len(p.Policy.Only) > 0 && !satisfiesAny(id, p.only) {
		return false
	}
	if p.Policy.ServicesOnly && !satisfiesAny(id, p.services) {
		return false
	}
	return true
}

func satisfiesAny(id pkgstore.Ident, pats []pkgstore.Ident) bool {
	for _, o := range pats {
		if id.Satisfies(o) {
			return true
		}
	}
	return false
}

// countScopes are versions whose own newest releases are kept by count:
// Only entries with a version and, with ServicesOnly or NoDeps, services'
// version-pinned specs (uninstall_all_but_latest(spec.ident, N)).
func (p *Plan) countScopes() []pkgstore.Ident {
	var out []pkgstore.Ident
	for _, o := range p.only {
		if o.Version != "" {
			out = append(out, o)
		}
	}
	if p.Policy.ServicesOnly || p.Policy.NoDeps {
		for _, s := range p.services {
			if s.Version != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func (p *Plan) scopeNames() string {
	var parts, only []string
	for _, o := range p.Policy.Only {
		only = append(only, o.String())
	}
	if len(only) > 0 {
		parts = append(parts, strings.Join(only, ", "))
	}
	if p.Policy.ServicesOnly {
		var svcs []string
		for _, s := range p.services {
			svcs = append(svcs, s.String())
		}
		if len(svcs) == 0 {
			svcs = []string{"none loaded"}
		}
		parts = append(parts, "loaded services' packages ("+strings.Join(svcs, ", ")+")")
	}
	return strings.Join(parts, "; ")
}

// applyScope keeps what the unlimited plan removes outside the scope.
func (p *Plan) applyScope() {
	var scopeRemoved []pkgstore.Ref
	for _, r := range p.Inventory.Releases {
		if !p.reach.Reached(r.Ref) && p.inScope(r.Ident) {
			scopeRemoved = append(scopeRemoved, r.Ref)
		}
	}
	freed := map[pkgstore.Ref]bool{}
	for _, d := range p.Graph.Closure(scopeRemoved...) {
		freed[d] = true
	}
	names := p.scopeNames()
	p.freed = map[pkgstore.Ref]string{}
	var extra []pkgstore.Ref
	for _, r := range p.Inventory.Releases {
		if p.reach.Reached(r.Ref) || p.inScope(r.Ident) {
			continue
		}
		switch {
		case freed[r.Ref] && p.Policy.NoDeps:
			p.addRoot(r.Ref, CodeNoDeps, fmt.Sprintf("needed only by releases of %s that this run removes, and kept as no-deps asks (as hab pkg uninstall --no-deps)", names))
			extra = append(extra, r.Ref)
		case freed[r.Ref]:
			p.freed[r.Ref] = fmt.Sprintf("needed only by releases of %s that this run removes (the packages it is limited to), and no kept release needs it", names)
		default:
			p.addRoot(r.Ref, CodeOutsideOnly, "not among the packages this run is limited to ("+names+"), nor needed only by their removed releases")
			extra = append(extra, r.Ref)
		}
	}
	p.reach.Extend(extra)
}
