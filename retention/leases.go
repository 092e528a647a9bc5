package retention

import (
	"fmt"
	"path"

	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// CodeLeased keeps a release a live lease names (package lease).
const CodeLeased Code = "leased"

// leaseRoots reads the live leases; found is false when there is no lease
// at all. Dead ones are counted, and only Apply sweeps them.
func leaseRoots(inv *pkgstore.Inventory) (f Found, found bool, err error) {
	if inv.FSRoot == "" {
		return Found{}, false, nil // an inventory not read from a store: no leases to read
	}
	live, dead, err := lease.Read(inv.FSRoot)
	if err != nil {
		return Found{}, false, err
	}
	f = Found{Source: "leases", Counts: map[string]int{"live": len(live), "dead": dead},
		Summary: fmt.Sprintf("%d live lease(s) in %s; %d dead one(s) (a real run removes them)", len(live), lease.Dir(inv.FSRoot), dead)}
	for _, h := range live {
		text := fmt.Sprintf("leased by %s (lease %s): an install may be about to use it", h.Holder, h.File)
		for _, id := range h.Idents {
			for _, m := range matchingReleases(inv, id) {
				f.Roots = append(f.Roots, Root{Ident: m, Code: CodeLeased, Text: text})
			}
		}
	}
	return f, len(live)+dead > 0, nil
}

// matchingReleases is id when fully qualified, else every release
// satisfying it, hidden ones too (so the final check puts them back).
func matchingReleases(inv *pkgstore.Inventory, id pkgstore.Ident) []pkgstore.Ident {
	if id.FullyQualified() {
		out := []pkgstore.Ident{id}
		if r := inv.Installed(id); r != nil && r.Ident != id {
			out = append(out, r.Ident) // the store's spelling (Windows: another case)
		}
		return out
	}
	var out []pkgstore.Ident
	for _, r := range inv.Releases {
		if r.Ident.SatisfiesAnyCase(id) {
			out = append(out, r.Ident)
		}
	}
	for _, d := range inv.Debris {
		if hid, ok := pendingIdent(d); ok && hid.SatisfiesAnyCase(id) {
			out = append(out, hid)
		}
	}
	return out
}

// sweepLeases removes dead leases; a failure is only logged (the reading
// that follows refuses).
func (a *applier) sweepLeases() {
	fsRoot := a.store.FSRoot()
	if n, err := lease.Sweep(fsRoot); err != nil {
		a.log.Warn("dead leases not removed", "dir", lease.Dir(fsRoot), "err", err)
	} else if n > 0 {
		a.log.Debug("dead leases removed", "dir", lease.Dir(fsRoot), "count", n)
	}
}

// pendingIdent is the release a pending debris directory Apply made holds.
func pendingIdent(debris string) (pkgstore.Ident, bool) {
	kind, release, ok := pkgstore.ParseDebris(path.Base(debris))
	if !ok || kind != "pending" {
		return pkgstore.Ident{}, false
	}
	id, err := pkgstore.ParseFullIdent(path.Dir(debris) + "/" + release)
	return id, err == nil
}
