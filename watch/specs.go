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

// watchSpecs watches the specs directory, or its nearest existing parent.
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

// spec.down: the Supervisor never starts it, so never purges it
// (components/sup/src/manager/service/spec.rs reconcile).
type spec struct {
	id   pkgstore.Ident
	down bool
}

// readSpecs: a spec that appears is no purge; the service's start is
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

// listSpecs maps file stems to specs; ok is false when it cannot list.
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
