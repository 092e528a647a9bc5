package retention

import (
	"fmt"
	"path"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// removal deletes a hidden release for good, surveyed (sv) and found to
// hold no mount point, and renamed to a doomed name (doomAll) unless that
// failed (sv.err says why), and says what became of it. It may run on a
// deletion worker's copy of the applier (deleteAll): it touches only the
// store and that copy's remover, never the result.
func (a *applier) removal(h hiddenRelease, sv survey) RemovalOutcome {
	bytes, err := sv.bytes, sv.err
	if err == nil {
		err = a.finish(h.name, h.rel.Ident.Release)
	}
	if err != nil {
		return RemovalOutcome{Ident: h.rel.Ident, Status: StatusFailed,
			Err: &ReleaseError{Ident: h.rel.Ident, Op: "delete", Err: fmt.Errorf("hidden from Habitat, but not all of it could be deleted (the next run retries): %w", err)}}
	}
	if h.size >= 0 {
		bytes = h.size
	}
	return RemovalOutcome{Ident: h.rel.Ident, Status: StatusRemoved, Bytes: bytes}
}

// survey is what a hidden directory holds before it is deleted: its
// size (when measured), the mount points in it, or why it could not be
// examined.
type survey struct {
	bytes  int64
	mounts []string
	err    error
}

// destroy deletes a hidden directory (store-relative name) for good.
// First it surveys the tree, measuring it when asked: when the tree holds
// a mount point, nothing is changed and the mount points are returned.
// Otherwise it deletes it (finish).
func (a *applier) destroy(name, release string, measure bool) (bytes int64, mounts []string, err error) {
	sv := a.survey(name, measure)
	if sv.err != nil || len(sv.mounts) > 0 {
		return 0, sv.mounts, sv.err
	}
	return sv.bytes, nil, a.finish(name, release)
}

// finish deletes a surveyed hidden directory: unless it is doomed already
// (doomAll), it renames it to a doomed name (so a crash can never restore
// it half deleted) and syncs that; it deletes it on its own file system
// without following a symlink (onefs.RemoveAll, which stops at a mount
// point that appears meanwhile), then removes the VERSION, NAME and
// ORIGIN directories if they are empty. The steps on the disk are the
// platform's (delete_linux.go, delete_other.go): doom, syncDoom and
// removeDoomed.
func (a *applier) finish(name, release string) error {
	vdir := path.Dir(name)
	if !strings.HasPrefix(path.Base(name), pkgstore.DebrisPrefix+"doomed-") {
		doomed, err := a.doom(name, release)
		if err != nil {
			return err
		}
		a.syncDoom(vdir)
		name = doomed
	}
	return a.removeDoomed(vdir, path.Base(name))
}

// doomAll renames every hidden release about to be deleted (neither put
// back nor failed to survey) to a doomed name, so that a crash can never
// restore it half deleted, before any is deleted. A doomed directory is
// deleted by the next run whatever needs it, so the renames keep the
// order of the hiding (dependents before what they need, hideOrder) all
// the way to the disk: the batch renamed since the last sync is made
// durable (its directories fsynced at once, as after hiding) before a
// release one of them needs is renamed. After a crash, then, a release
// still pending (whole, put back by the next run if something needs it)
// never needs a doomed one. hidden[i].name becomes the doomed name; a
// rename that fails becomes surveys[i].err (removal reports it).
//
// A release that is not doomed (its survey or its rename failed) stays
// hidden under its pending name, and the next run puts it back if
// something needs it then: what it needs among the hidden (deps, hidden)
// is put back (back), not doomed. Coming after it in the hiding's order,
// none of it has been doomed yet.
func (a *applier) doomAll(hidden []hiddenRelease, surveys []survey, back *putBack, deps func(pkgstore.Ident) []pkgstore.Ident, isHidden func(pkgstore.Ident) bool) {
	var batch hideBatch
	for i := range hidden {
		h := &hidden[i]
		if _, ok := back.reason(h.rel.Ident); ok {
			continue
		}
		if surveys[i].err != nil {
			a.stage("removing", h.rel.Ident, h.name)
			back.keepNeeds(h.rel.Ident, deps, isHidden)
			continue
		}
		if batch.needs[h.rel.Ident] {
			a.sync(&batch, "doomed")
		}
		a.stage("removing", h.rel.Ident, h.name)
		name, err := a.doom(h.name, h.rel.Ident.Release)
		if err != nil {
			surveys[i].err = err
			back.keepNeeds(h.rel.Ident, deps, isHidden)
			continue
		}
		h.name = name
		batch.add(*h)
		if batch.needs == nil {
			batch.needs = map[pkgstore.Ident]bool{}
		}
		for _, d := range h.deps {
			batch.needs[d] = true
		}
	}
	a.sync(&batch, "doomed")
}
