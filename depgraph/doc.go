// Package depgraph is the dependency graph of the releases in a Habitat
// package store.
//
// Nodes are the idents a scan met: every installed release, and every
// release named in a DEPS or TDEPS file but not installed (flagged so).
// An edge runs from a release to each release its DEPS or TDEPS names:
// either file naming it is enough, so a release is connected directly to
// its whole runtime closure even when one of the two files is incomplete.
//
//	g := depgraph.New(inv)
//	needs := g.Closure(ref)             // what ref needs, transitively
//	users := g.ReverseClosure(ref)      // what needs ref
//	reach := g.Reach(roots)             // mark from roots (with shortest chains)
//	chain := reach.Chain(ref)           // root, ..., ref
//	dot, _ := g.DOT(nil)                // Graphviz, via gonum's encoding/dot
//
// Internally the graph is stored as compact adjacency arrays (marking a
// 100,000-release store is a few milliseconds), and it is exposed to gonum
// as a graph.Directed for traversal and export. gonum's node IDs never
// appear in this package's API: callers speak pkgstore.Ref and
// pkgstore.Ident.
package depgraph
