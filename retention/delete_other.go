//go:build !linux

package retention

import (
	"fmt"
	"path"
	"strings"

	"github.com/hab-gc/hab-gc/internal/onefs"
)

// remover is what deleting keeps from one release to the next: nothing
// here (each step opens its path again from the store's root).
type remover struct{}

func (r *remover) close() {}

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

// doom renames the hidden directory name (store-relative) to a doomed
// name in the same VERSION directory and returns the new name. The rename
// is not synced: the caller does that.
func (a *applier) doom(name, release string) (string, error) {
	doomed := debrisName(path.Dir(name), "doomed", release)
	if err := a.root.Rename(name, doomed); err != nil {
		return "", err
	}
	return doomed, nil
}

// syncDoom makes doom's rename in vdir durable.
func (a *applier) syncDoom(vdir string) { a.syncDir(vdir) }

// removeDoomed deletes the doomed directory base in vdir (finish), on
// the VERSION directory opened from the store's root, and prunes the
// empty directories above it.
func (a *applier) removeDoomed(vdir, base string) error {
	top, err := a.root.Open(".")
	if err != nil {
		return err
	}
	parent, err := onefs.OpenDir(top, vdir)
	top.Close()
	if err != nil {
		return err
	}
	_, err = onefs.RemoveAll(parent, base)
	// Closed before pruning: on Windows a directory deleted by plain
	// (not POSIX-semantics) deletion keeps its name until its last
	// handle closes, so VERSION, still open, would keep NAME from being
	// empty.
	parent.Close()
	if err != nil {
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

// probe fsyncs the ORIGIN directory of a release just deleted (its
// VERSION and NAME directories may be gone): pacer.after times it.
func (a *applier) probe(vdir string) {
	origin, _, _ := strings.Cut(vdir, "/")
	a.syncDir(origin)
}
