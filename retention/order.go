package retention

import (
	"errors"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// hideOrder returns the plan's removals dependents first: each comes
// before every removal it needs through DEPS or TDEPS, directly or not.
// Apply hides them in this order, so that whenever it stops (a crash, a
// kill), no release that is still listed needs a hidden one, and the next
// run, which deletes hidden releases nothing needs, leaves exactly what
// the rules keep. Releases in a dependency cycle (which Habitat cannot
// build, but a damaged store can show) come together, in inventory order.
// Ties are broken by inventory order, so the order is deterministic.
func (p *Plan) hideOrder() []Decision {
	removals := p.Removals()
	index := make(map[pkgstore.Ref]int64, len(removals))
	g := simple.NewDirectedGraph()
	for i, d := range removals {
		index[d.Release.Ref] = int64(i)
		g.AddNode(simple.Node(i))
	}
	for i, d := range removals {
		for _, dep := range p.Graph.Deps(d.Release.Ref) {
			if j, ok := index[dep]; ok && j != int64(i) {
				g.SetEdge(simple.Edge{F: simple.Node(i), T: simple.Node(j)}) // dependent -> dependency
			}
		}
	}
	sorted, err := topo.SortStabilized(g, nil)
	var cycles topo.Unorderable
	if err != nil && !errors.As(err, &cycles) {
		return removals // cannot happen: SortStabilized fails only on cycles
	}
	out := make([]Decision, 0, len(removals))
	add := func(n graph.Node) { out = append(out, removals[n.ID()]) }
	for _, n := range sorted {
		if n != nil {
			add(n)
			continue
		}
		for _, m := range cycles[0] {
			add(m)
		}
		cycles = cycles[1:]
	}
	return out
}
