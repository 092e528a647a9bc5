package retention

import (
	"fmt"
	"slices"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// WhyAll is Why of every installed release satisfying id, newest first.
func (p *Plan) WhyAll(id pkgstore.Ident) ([]Explanation, error) {
	if p == nil || p.Inventory == nil {
		return nil, ErrNoPlan
	}
	if id.FullyQualified() {
		ex, err := p.Why(id)
		if err != nil {
			return nil, err
		}
		return []Explanation{ex}, nil
	}
	rels := slices.Clone(p.Inventory.Satisfying(id))
	if len(rels) == 0 {
		return nil, fmt.Errorf("%s: %w", id, ErrNotInstalled)
	}
	slices.Reverse(rels) // Habitat's order is oldest first
	out := make([]Explanation, 0, len(rels))
	for _, r := range rels {
		ex, err := p.Why(r.Ident)
		if err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	return out, nil
}
