package retention

import (
	"fmt"
	"path"
	"strings"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// remove deletes a hidden release for good, surveyed (sv) and found to
// hold no mount point.
func (a *applier) remove(h hiddenRelease, sv survey) {
	a.stage("removing", h.rel.Ident, h.name)
	bytes, err := sv.bytes, sv.err
	if err == nil {
		err = a.finish(h.name, h.rel.Ident.Release)
	}
	if err != nil {
		a.done(RemovalOutcome{Ident: h.rel.Ident, Status: StatusFailed,
			Err: &ReleaseError{Ident: h.rel.Ident, Op: "delete", Err: fmt.Errorf("hidden from Habitat, but not all of it could be deleted (the next run retries): %w", err)}})
		return
	}
	if h.size >= 0 {
		bytes = h.size
	}
	a.done(RemovalOutcome{Ident: h.rel.Ident, Status: StatusRemoved, Bytes: bytes})
}

// survey is what a hidden directory holds before it is deleted: its
// size (when measured), the mount points in it, or why it could not be
// examined.
type survey struct {
	bytes  int64
	mounts []string
	err    error
}

// survey walks a hidden directory (store-relative name) on its own file
// system, measuring it when asked, and lists the mount points in it.
func (a *applier) survey(name string, measure bool) survey {
	top, err := a.root.Open(".")
	if err != nil {
		return survey{err: err}
	}
	defer top.Close()
	parent, err := onefs.OpenDir(top, path.Dir(name))
	if err != nil {
		return survey{err: err}
	}
	defer parent.Close()
	dir, err := onefs.OpenDir(parent, path.Base(name))
	if err != nil {
		return survey{err: err}
	}
	u, err := onefs.Walk(dir, measure)
	dir.Close()
	if err != nil {
		return survey{err: fmt.Errorf("examining %s before deleting it: %w", name, err)}
	}
	return survey{bytes: u.Bytes, mounts: u.Mounts}
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

// finish deletes a surveyed hidden directory: it renames it to a doomed
// name (so a crash can never restore it half deleted), deletes it on its
// own file system without following a symlink (onefs.RemoveAll, which
// stops at a mount point that appears meanwhile), then removes the
// VERSION, NAME and ORIGIN directories if they are empty.
func (a *applier) finish(name, release string) error {
	vdir, base := path.Dir(name), path.Base(name)
	top, err := a.root.Open(".")
	if err != nil {
		return err
	}
	defer top.Close()
	parent, err := onefs.OpenDir(top, vdir)
	if err != nil {
		return err
	}
	defer parent.Close()
	if !strings.HasPrefix(base, pkgstore.DebrisPrefix+"doomed-") {
		doomed := debrisName(vdir, "doomed", release)
		if err := a.root.Rename(name, doomed); err != nil {
			return err
		}
		a.syncDir(vdir)
		base = path.Base(doomed)
	}
	if _, err := onefs.RemoveAll(parent, base); err != nil {
		return err
	}
	a.pruneEmpty(vdir)
	return nil
}

// pruneEmpty removes dir and its parents while they are empty. rmdir(2)
// fails on a non-empty directory, so an install that has just put
// something there wins; "not empty" and "not found" are expected.
func (a *applier) pruneEmpty(dir string) {
	for d := dir; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		fi, err := a.root.Lstat(d)
		if err != nil || !fi.IsDir() {
			return
		}
		if err := a.removeEmptyDir(d); err != nil {
			return // ENOTEMPTY, EEXIST, ENOENT: someone else's now
		}
	}
}
