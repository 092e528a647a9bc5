package retention

import (
	"fmt"
	"path"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// removal deletes a surveyed, doomed release. It runs on a worker's copy
// of the applier: it never touches the result.
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

type survey struct {
	bytes  int64
	mounts []string
	err    error
}

// destroy deletes a hidden directory unless its survey finds a mount point.
func (a *applier) destroy(name, release string, measure bool) (bytes int64, mounts []string, err error) {
	sv := a.survey(name, measure)
	if sv.err != nil || len(sv.mounts) > 0 {
		return 0, sv.mounts, sv.err
	}
	return sv.bytes, nil, a.finish(name, release)
}

// finish dooms a surveyed hidden directory (so a crash never restores it
// half deleted) and deletes it, then its empty parents.
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

// doomAll renames every release about to be deleted to a doomed name
// before any is deleted, in the hiding's order and synced like it: the
// next run deletes a doomed directory whatever needs it, so a pending one
// must never need a doomed one. A release not doomed (survey or rename
// failed) stays pending, and what it needs is put back.
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
