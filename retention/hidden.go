package retention

import (
	"errors"
	"io/fs"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// An interrupted run's hidden releases are planned as if installed.
// takeHidden returns those Apply deletes with its removals: the fresh plan
// removes them and the plan removes them too, in the directory it saw, or
// does not know them (unknown, dependents first).
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

// putBackHidden puts back, each as a Leftover, every hidden release Apply
// does not take, what each needs first.
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

// uninstallHooks is HasUninstallHook, looking into hidden directories too.
func uninstallHooks(store *pkgstore.Store, inv *pkgstore.Inventory) func(pkgstore.Ident) bool {
	return func(id pkgstore.Ident) bool {
		if d, ok := inv.Hidden[id]; ok {
			_, err := store.Root().Lstat(d + "/hooks/uninstall")
			return !errors.Is(err, fs.ErrNotExist)
		}
		return store.HasUninstallHook(id)
	}
}
