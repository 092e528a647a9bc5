package watch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// watchSpecs watches the specs directory, or while it does not exist its
// nearest existing parent below the FS root, to see it appear.
func (w *watcher) watchSpecs() {
	root := w.o.Store.FSRoot()
	for dir := w.specsDir; ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			w.add(dir)
			return
		}
		if dir == root || dir == filepath.Dir(dir) {
			return
		}
	}
}

// spec is what watch reads of a spec file: its ident, and whether its
// desired_state is "down" (the Supervisor never starts it, so never
// purges it: components/sup/src/manager/service/spec.rs reconcile).
type spec struct {
	id   pkgstore.Ident
	down bool
}

// readSpecs reads the spec files; with changes, a package whose last spec
// went starts its unload grace. A spec that appears is not a purge: the
// Supervisor purges as it starts the service, which its PID file shows
// (readPIDs).
func (w *watcher) readSpecs(changes bool) {
	now, ok := w.listSpecs()
	if !ok {
		return
	}
	old := w.specs
	w.specs = now
	if changes {
		w.specsChanged(old, now)
	}
}

// listSpecs reads the idents of the spec files, by file stem; a spec that
// cannot be parsed keeps the ident it had (being rewritten: still
// loaded). ok is false, with a warning logged, when the specs directory
// cannot be listed.
func (w *watcher) listSpecs() (now map[string]spec, ok bool) {
	now = map[string]spec{}
	entries, err := safeio.ReadDir(w.specsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		w.o.log().Warn("cannot list the specs directory; keeping the services seen before", "error", err)
		return nil, false
	}
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".spec")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		// Checked again on the open descriptor, never blocking: the entry's
		// type was read before the open, and it may be a FIFO now.
		data, err := safeio.ReadFile(filepath.Join(w.specsDir, e.Name()), safeio.Limit, safeio.NoFollow)
		if err != nil {
			continue
		}
		id, state, err := pkgstore.ParseServiceSpec(stem, data)
		if err != nil {
			if old, ok := w.specs[stem]; ok {
				now[stem] = old // being rewritten: still loaded
			}
			continue
		}
		now[stem] = spec{id: id, down: state == "down"}
	}
	return now, true
}

// specsChanged starts the unload grace of a package whose last spec went
// (with OnUnload), and ends it for one loaded again.
func (w *watcher) specsChanged(old, now map[string]spec) {
	for _, sp := range now {
		delete(w.unloaded, sp.id.Package())
	}
	for stem, sp := range old {
		id := sp.id
		if _, ok := now[stem]; ok || w.loaded(id.Package()) || !w.o.OnUnload {
			continue
		}
		if _, ok := w.unloaded[id.Package()]; !ok {
			w.unloaded[id.Package()] = w.o.now()
			w.o.log().Info("service unloaded; its releases go after the unload grace unless it is loaded again",
				"package", id.Package().String(), "spec", stem+".spec", "grace", w.o.grace().String())
		}
	}
}

// loaded reports whether a spec loads a release of pkg.
func (w *watcher) loaded(pkg pkgstore.Ident) bool {
	for _, sp := range w.specs {
		if sp.id.Package() == pkg {
			return true
		}
	}
	return false
}

// down reports whether pkg is loaded by specs that all say it is down.
func (w *watcher) down(pkg pkgstore.Ident) bool {
	loaded := false
	for _, sp := range w.specs {
		if sp.id.Package() == pkg {
			if !sp.down {
				return false
			}
			loaded = true
		}
	}
	return loaded
}

// specIdents are the idents of the specs that load pkg, sorted.
func (w *watcher) specIdents(pkg pkgstore.Ident) []pkgstore.Ident {
	var out []pkgstore.Ident
	for _, sp := range w.specs {
		if sp.id.Package() == pkg {
			out = append(out, sp.id)
		}
	}
	slices.SortFunc(out, func(a, b pkgstore.Ident) int { return strings.Compare(a.String(), b.String()) })
	return out
}
