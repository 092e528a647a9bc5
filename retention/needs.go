package retention

import (
	"github.com/hab-gc/hab-gc/pkgstore"
)

// needs answers whether something in an inventory needs a release that is
// not (or no longer) installed: an installed release or an install in
// progress naming it, a spec it would satisfy better than what is
// installed, a binlink into it, or a RootFinder's root (roots).
type needs struct {
	inv     *pkgstore.Inventory
	byIdent map[pkgstore.Ident]string
	roots   map[pkgstore.Ident][]Reason
	// waitFor, when set, needs every release: an install is running.
	waitFor string
}

func newNeeds(inv *pkgstore.Inventory, found []Found) needs {
	n := needs{inv: inv, byIdent: map[pkgstore.Ident]string{}, roots: rootsByIdent(found)}
	if inv == nil {
		return n
	}
	for r, d := range inv.MissingDeps() {
		n.byIdent[inv.Ident(d)] = "needed by " + r.Ident.String() + ", installed since the plan"
	}
	held := foundInstalls(found)
	for _, list := range [3][]pkgstore.Installing{held, inv.Installing, inv.Fetched} {
		for _, in := range list {
			for _, d := range in.Deps {
				n.byIdent[d] = "needed by the install in progress at " + installPath(in)
			}
		}
	}
	for _, in := range held {
		if in.Active {
			n.waitFor = heldWhy(in)
			break
		}
	}
	for _, in := range inv.Installing {
		if n.waitFor != "" {
			break
		}
		if in.Active {
			n.waitFor = "an install is in progress at " + installPath(in) + ": removals wait for it to end"
			break
		}
	}
	for _, in := range inv.Fetched {
		// As the plan (installRoots): a download, or a fresh archive whose
		// release is not installed, is an install that may use releases
		// it found installed, which no archive names.
		if n.waitFor != "" || !in.Active {
			continue
		}
		if in.Download {
			n.waitFor = "a download is in progress at " + installPath(in) + ": removals wait for the install to end"
		} else {
			n.waitFor = "the archive " + installPath(in) + " came into the cache within the install window and its release is not installed: removals wait for its install to end"
		}
	}
	if why := depsUnknown(inv); why != "" && n.waitFor == "" {
		n.waitFor = why
	}
	for _, o := range inv.Opaque {
		for _, d := range o.Deps {
			n.byIdent[d] = "named by " + o.Path + ", which Habitat lists as installed but hab-gc cannot read as a release"
		}
	}
	for _, b := range inv.Binlinks {
		for _, id := range b.Covers {
			n.byIdent[id] = coverText(b)
		}
		if b.InStore && b.Release.Origin != "" {
			n.byIdent[b.Release] = "binlink " + b.Path + " points into it"
		}
	}
	return n
}

func (n needs) check(id pkgstore.Ident) (string, bool) {
	if rs := n.roots[id]; len(rs) > 0 {
		return rs[0].Text, true
	}
	if n.inv == nil {
		return "", false
	}
	if why, ok := n.byIdent[id]; ok {
		return why, true
	}
	if n.waitFor != "" {
		return n.waitFor, true
	}
	for _, s := range n.inv.Services {
		if n.inv.MayRun(s, id) {
			return "loaded service " + s.Name + " would run it", true
		}
	}
	return "", false
}
