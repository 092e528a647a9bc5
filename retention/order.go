package retention

import (
	"cmp"
	"errors"
	"slices"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// hideOrder returns the removals dependents first, so that whenever Apply
// stops no listed release needs a hidden one; a cycle's members and ties
// in inventory order, grouped in layers that share one sync.
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
	order := make([]int64, 0, len(removals))
	for _, n := range sorted {
		if n != nil {
			order = append(order, n.ID())
			continue
		}
		for _, m := range cycles[0] {
			order = append(order, m.ID())
		}
		cycles = cycles[1:]
	}
	// A release goes one layer after the last earlier removal that needs
	// it: none needs another of its layer, except within a cycle.
	pos := make([]int, len(removals))
	for i, n := range order {
		pos[n] = i
	}
	layer := make([]int, len(removals))
	for _, n := range order {
		for _, m := range graph.NodesOf(g.From(n)) {
			if pos[m.ID()] > pos[n] {
				layer[m.ID()] = max(layer[m.ID()], layer[n]+1)
			}
		}
	}
	slices.SortStableFunc(order, func(x, y int64) int { return cmp.Compare(layer[x], layer[y]) })
	out := make([]Decision, len(order))
	for i, n := range order {
		out[i] = removals[n]
	}
	return out
}
