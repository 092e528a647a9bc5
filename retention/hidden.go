package retention

import (
	"errors"
	"io/fs"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// The releases an interrupted run hid are planned as if installed
// (pkgstore.Options.Hidden): a plan keeps or removes each as any other.
// Apply deletes those both its plans remove with the rest of its
// removals, each one's outcome counted, reported and recorded as any
// other's, and puts back every other one first (putBackHidden).

// takeHidden returns the hidden releases of fresh that Apply deletes:
// those the fresh plan removes and the plan either removes too, in the
// directory it saw, or does not know (a plan made from a scan that did
// not list them). The second are returned in deletion order too
// (dependents first), to be deleted before the plan's removals.
func takeHidden(p *Plan, fresh *pkgstore.Inventory, freshPlan *Plan) (take map[pkgstore.Ident]bool, unknown []Decision) {
	take = map[pkgstore.Ident]bool{}
	for _, fd := range freshPlan.hideOrder() {
		id := fd.Release.Ident
		if _, hidden := fresh.Hidden[id]; !hidden {
			continue
		}
		d, ok := p.Decision(id)
		switch {
		case !ok:
			take[id] = true
			unknown = append(unknown, fd)
		case d.Action == Remove && fd.Release.Dev == d.Release.Dev && fd.Release.Ino == d.Release.Ino:
			take[id] = true
		}
	}
	return take, unknown
}

// putBackHidden puts back every hidden release of fresh that Apply does
// not delete (take), what each needs first (putBackAll), and records each
// as a Leftover: kept, with the fresh plan's first reason, or failed (it
// stays hidden, for the next run).
func (a *applier) putBackHidden(fresh *pkgstore.Inventory, take map[pkgstore.Ident]bool, freshPlan *Plan) {
	var hs []hiddenRelease
	var whys []Reason
	seen := map[pkgstore.Ident]bool{}
	var visit func(r *pkgstore.Release)
	visit = func(r *pkgstore.Release) {
		id := r.Ident
		if seen[id] {
			return
		}
		seen[id] = true
		deps := depsOf(fresh, r)
		for _, d := range deps {
			if dr := fresh.Installed(d); dr != nil {
				if _, hidden := fresh.Hidden[d]; hidden && !take[d] {
					visit(dr)
				}
			}
		}
		why := Reason{CodeChanged, "the plan made before the run does not remove it"}
		if fd, ok := freshPlan.Decision(id); ok && fd.Action == Keep && len(fd.Reasons) > 0 {
			why = fd.Reasons[0]
		}
		hs = append(hs, hiddenRelease{rel: r, name: fresh.Hidden[id], deps: deps})
		whys = append(whys, why)
	}
	for _, r := range fresh.Releases {
		if _, hidden := fresh.Hidden[r.Ident]; hidden && !take[r.Ident] {
			visit(r)
		}
	}
	for i, o := range a.putBackAll(hs, whys) {
		l := Leftover{Path: hs[i].name, Status: o.Status, Text: "put back as " + hs[i].rel.Path() + ": " + whys[i].Text}
		if o.Status == StatusFailed {
			l.Text = o.ErrorText()
		} else if len(o.Reasons) > 1 {
			l.Text = o.Reasons[1].Text
		}
		a.leftover(l)
	}
}

// uninstallHooks is the store's HasUninstallHook, looking into the
// directory a hidden release of inv is in.
func uninstallHooks(store *pkgstore.Store, inv *pkgstore.Inventory) HookFunc {
	return func(id pkgstore.Ident) bool {
		if d, ok := inv.Hidden[id]; ok {
			_, err := store.Root().Lstat(d + "/hooks/uninstall")
			return !errors.Is(err, fs.ErrNotExist)
		}
		return store.HasUninstallHook(id)
	}
}
