package retention

import (
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Removals returns the decisions to remove, in plan order.
func (p *Plan) Removals() []Decision { return p.filter(Remove) }

// Keeps returns the decisions to keep, in plan order.
func (p *Plan) Keeps() []Decision { return p.filter(Keep) }

func (p *Plan) filter(a Action) []Decision {
	var out []Decision
	if p == nil {
		return nil
	}
	for _, d := range p.Decisions {
		if d.Action == a {
			out = append(out, d)
		}
	}
	return out
}

// reclaimableBytes sums the removals' sizes; -1 when not measured.
func (p *Plan) reclaimableBytes() int64 {
	var total int64
	for _, d := range p.Decisions {
		if d.Action == Remove {
			if d.Release.Size < 0 {
				return -1
			}
			total += d.Release.Size
		}
	}
	return total
}

// Decision returns the decision for an installed release.
func (p *Plan) Decision(id pkgstore.Ident) (Decision, bool) {
	r, ok := p.Inventory.Lookup(id)
	if !ok {
		return Decision{}, false
	}
	if int(r) >= len(p.decisionAt) || p.decisionAt[r] < 0 {
		return Decision{}, false
	}
	return p.Decisions[p.decisionAt[r]], true
}

// Explanation answers Why.
type Explanation struct {
	Decision Decision
	// Chain runs from the root that keeps the release to it; nil for a
	// removal.
	Chain []pkgstore.Ident
	// RootReasons are why the first release of Chain is kept.
	RootReasons []Reason
	InstalledBy string
}

// ErrNotInstalled is returned by Why for an ident that is not installed.
var ErrNotInstalled = errors.New("not an installed release")

// Why explains the decision for id (a partial ident: its newest release).
func (p *Plan) Why(id pkgstore.Ident) (Explanation, error) {
	if p == nil || p.Inventory == nil {
		return Explanation{}, ErrNoPlan
	}
	if !id.FullyQualified() {
		r := p.Inventory.Latest(id)
		if r == nil {
			return Explanation{}, fmt.Errorf("%s: %w", id, ErrNotInstalled)
		}
		id = r.Ident
	}
	d, ok := p.Decision(id)
	if !ok {
		return Explanation{}, fmt.Errorf("%s: %w", id, ErrNotInstalled)
	}
	ex := Explanation{Decision: d, InstalledBy: p.Inventory.InstalledBy(d.Release)}
	if d.Action == Keep {
		for _, r := range p.reach.Chain(d.Release.Ref) {
			ex.Chain = append(ex.Chain, p.Inventory.Ident(r))
		}
		root, _ := p.Inventory.Lookup(ex.Chain[0])
		ex.RootReasons = p.rootOf[root]
	}
	return ex, nil
}
