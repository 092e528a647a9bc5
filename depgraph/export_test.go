package depgraph

type JSONGraph = jsonGraph

func (g *Graph) Edges() int { return len(g.out) }
