package retention

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"path"

	"github.com/hab-gc/hab-gc/pkgstore"
)

func debrisName(dir, kind, release string) string {
	return dir + "/" + pkgstore.DebrisPrefix + kind + "-" + release + "-" + rand.Text()[:10]
}

// finishDebris completes what an interrupted run left: doomed directories
// are deleted; pending ones are put back, with their hidden closure, when
// their place is free and something needs them, else deleted. Only names
// hab-gc makes are touched. It returns how many it put back.
func (a *applier) finishDebris(inv *pkgstore.Inventory, found []Found) (putBack int) {
	needs := newNeeds(inv, found)
	pending := map[pkgstore.Ident][]string{}
	for _, d := range inv.Debris {
		if id, ok := pendingIdent(d); ok && inv.Hidden[id] != d {
			if fi, err := a.root.Lstat(d); err == nil && fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
				pending[id] = append(pending[id], d)
			}
		}
	}
	deps := func(id pkgstore.Ident) []pkgstore.Ident {
		var out []pkgstore.Ident
		for _, d := range pending[id] {
			out = append(out, hiddenDeps(a.root, d)...)
		}
		return out
	}
	isPending := func(id pkgstore.Ident) bool { return len(pending[id]) > 0 }
	back := newPutBack()
	for id := range pending {
		if why, needed := needs.check(id); needed {
			back.want(id, Reason{CodeNewDependent, why}, deps, isPending)
		}
	}
	for _, d := range inv.Debris {
		if a.ctx.Err() != nil {
			return putBack // the next run finishes the rest
		}
		if id, ok := pendingIdent(d); ok && inv.Hidden[id] == d {
			continue // a release the plan decides about
		}
		dir := path.Dir(d)
		kind, release, ok := pkgstore.ParseDebris(path.Base(d))
		fi, err := a.root.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // finished by someone else
		case err != nil:
			a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "cannot be examined: " + err.Error()})
			continue
		case fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir():
			a.leftover(Leftover{Path: d, Status: StatusNotAttempted, Text: "a " + fileKind(fi.Mode()) + " with a name like hab-gc's hidden directories: not hab-gc's, left alone"})
			continue
		case !ok:
			a.leftover(Leftover{Path: d, Status: StatusNotAttempted, Text: "a directory whose name hab-gc never makes: not hab-gc's, left alone"})
			continue
		}
		if kind == "pending" {
			orig := dir + "/" + release
			if id, ok := pendingIdent(d); ok {
				if why, needed := back.reason(id); needed {
					_, err := a.root.Lstat(orig)
					switch {
					case err == nil:
						// Installed again meanwhile: the hidden one goes.
					case !errors.Is(err, fs.ErrNotExist):
						a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "needed (" + why.Text + "), but its place " + orig + " cannot be examined, so it stays hidden for the next run: " + err.Error()})
						continue
					default:
						if err := a.root.Rename(d, orig); err != nil {
							a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "needed (" + why.Text + "), but could not be put back as " + orig + ", so it stays hidden for the next run: " + err.Error()})
							continue
						}
						a.syncDir(dir)
						putBack++
						a.leftover(Leftover{Path: d, Status: StatusKept, Text: "put back as " + orig + ": " + why.Text})
						continue
					}
				}
			}
		}
		_, mounts, err := a.destroy(d, release, false)
		switch {
		case len(mounts) > 0:
			a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "not deleted: " + mountText(pkgstore.StoreDir+"/"+d+"/"+mounts[0])})
		case err != nil:
			a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "could not be deleted: " + err.Error()})
		default:
			a.leftover(Leftover{Path: d, Status: StatusRemoved, Text: "deleted"})
		}
	}
	return putBack
}

func (a *applier) leftover(l Leftover) {
	a.res.Leftovers = append(a.res.Leftovers, l)
	switch l.Status {
	case StatusFailed:
		a.res.Failed++
		a.log.Warn("leftover of an interrupted run", "path", l.Path, "status", string(l.Status), "error", l.Text)
	case StatusNotAttempted:
		a.log.Warn("leftover of an interrupted run", "path", l.Path, "status", string(l.Status), "reason", l.Text)
	default:
		a.log.Debug("leftover of an interrupted run", "path", l.Path, "status", string(l.Status), "reason", l.Text)
	}
}
