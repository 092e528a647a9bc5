//go:build !linux

package retention

import (
	"fmt"
	"path"
	"strings"

	"github.com/hab-gc/hab-gc/internal/onefs"
)

type remover struct{}

func (r *remover) close() {}

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

func (a *applier) doom(name, release string) (string, error) {
	doomed := debrisName(path.Dir(name), "doomed", release)
	if err := a.root.Rename(name, doomed); err != nil {
		return "", err
	}
	return doomed, nil
}

func (a *applier) syncDoom(vdir string) { a.syncDir(vdir) }

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
	// Closed before pruning: on Windows a deleted directory keeps its name
	// until its last handle closes.
	parent.Close()
	if err != nil {
		return err
	}
	a.pruneEmpty(vdir)
	return nil
}

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

// probe fsyncs the ORIGIN directory (VERSION and NAME may be gone).
func (a *applier) probe(vdir string) {
	origin, _, _ := strings.Cut(vdir, "/")
	a.syncDir(origin)
}
