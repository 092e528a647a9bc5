package retention

import (
	"context"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// A Rescanner reads the store again for Apply (ApplyOptions.Rescan), in
// place of Store.Scan, each time Apply reads it under the store's lock:
// the re-scan that revalidates the plan, the one after leftovers are put
// back, and the last check after the settle pause. It must return the
// store as Store.Scan with opts would return it at the time of the call,
// or an error (Apply then stops as when a scan fails: nothing hidden
// before revalidation, everything hidden put back after).
//
// Package watch passes one that reads again only the ORIGIN/NAME
// directories inotify reported a change in since the plan's scan
// (Store.Rescan of the plan's inventory), after reading every event the
// kernel queued before the call (Store.MarkLocked), and a full Scan when
// it cannot vouch for that (an overflow, an unwatched directory,
// polling). A Rescanner that cannot vouch for what it returns must scan.
type Rescanner func(ctx context.Context, opts pkgstore.Options) (*pkgstore.Inventory, error)

// scan reads the store for Apply: the caller's Rescanner, else a full
// Scan.
func (a *applier) scan(ctx context.Context, opts pkgstore.Options) (*pkgstore.Inventory, error) {
	if a.opts.Rescan != nil {
		return a.opts.Rescan(ctx, opts)
	}
	return a.store.Scan(ctx, opts)
}

// graphFrom is the dependency graph of inv, Apply's fresh inventory,
// taking the edges of every release inv shares with the plan's (a
// Rescanner's inventory shares all it took again; a full Scan's none).
func graphFrom(inv *pkgstore.Inventory, p *Plan) *depgraph.Graph {
	return depgraph.NewFrom(inv, p.Graph)
}
