// Package depgraph is the dependency graph of a package store: one node per
// ident a scan met (installed, or named in DEPS or TDEPS but missing), an
// edge from a release to each release either file names. Callers speak
// pkgstore.Ref; gonum serves traversal and export (see ExampleGraph).
//
//	g := depgraph.New(inv)
//	needs, users := g.Closure(ref), g.ReverseClosure(ref)
//	chain := g.Reach(roots).Chain(ref) // a shortest chain, root first
package depgraph
