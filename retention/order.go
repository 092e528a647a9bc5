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

// hideOrder returns the plan's removals dependents first: each comes
// before every removal it needs through DEPS or TDEPS, directly or not.
// Apply hides them in this order, so that whenever it stops (a crash, a
// kill), no release that is still listed needs a hidden one, and the next
// run, which deletes hidden releases nothing needs, leaves exactly what
// the rules keep. Releases in a dependency cycle (which Habitat cannot
// build, but a damaged store can show) come in inventory order among
// themselves. Ties are broken by inventory order, so the order is
// deterministic; then the removals are grouped in layers (see below), so
// that Apply can make the hiding of many releases durable with one sync.
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
	// In layers: a release comes one layer after the last of the
	// removals before it that need it (removals nothing before needs are
	// layer 0), and the order within a layer is kept. Every release still
	// comes after all its dependents (the layers only group), and no
	// release needs another of its layer, except within a cycle: Apply
	// makes a whole layer's hidings durable with one sync.
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
