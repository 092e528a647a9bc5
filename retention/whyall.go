package retention

import (
	"fmt"
	"slices"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// WhyAll explains the plan's decision for every installed release that
// satisfies id: for a fully qualified ident its one release (Why), for a
// partial one (core/openssl, core/openssl/1.1.1) each release of it,
// newest first. With none installed it fails with ErrNotInstalled.
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
