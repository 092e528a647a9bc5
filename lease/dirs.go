package lease

// habitatDir, Habitat's part of relDir, is followed when leases are read,
// as the store's path is (an operator may have moved /hab); ownDir never.
const (
	habitatDir = "hab/sup/default"
	ownDir     = "hab-gc/leases"
)
