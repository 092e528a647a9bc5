package watch

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

func (w *watcher) handleError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.o.log().Warn("inotify queue overflowed: rescanning the store", "error", err)
		w.readSpecs(true)
		w.rescan(true)
		w.readPIDs(true)
		return
	}
	w.o.log().Warn("inotify error", "error", err)
}

// fallBack lists the store every Delay instead of inotify.
func (w *watcher) fallBack(err error) {
	if w.fallback {
		return
	}
	w.fallback = true
	if w.fsw != nil {
		w.fsw.Close()
		w.fsw = nil
	}
	hint := ""
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, errWatchCap) {
		hint = " (raise fs.inotify.max_user_watches)"
	} else if errors.Is(err, syscall.EMFILE) {
		hint = " (raise fs.inotify.max_user_instances)"
	}
	w.o.log().Warn("inotify limit reached"+hint+": falling back to a rescan of the store every delay", "error", err.Error(), "delay", w.o.delay().String())
}

var errWatchCap = errors.New("the watch cap (MaxWatches) is reached")

// add watches dir; false when it is not watched (fallback, gone).
func (w *watcher) add(dir string) bool {
	if w.fsw == nil || w.watched[dir] {
		return w.watched[dir]
	}
	if w.o.MaxWatches > 0 && len(w.watched) >= w.o.MaxWatches {
		w.fallBack(errWatchCap)
		return false
	}
	if err := w.fsw.Add(dir); err != nil {
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
			w.fallBack(err)
		}
		return false
	}
	w.watched[dir] = true
	return true
}

// addTree watches dir (depth 0: the store ... 3: a version) and below it
// down to versions; with fresh, each release found is new.
func (w *watcher) addTree(dir string, depth int, fresh bool) {
	w.add(dir) // before listing: nothing created meanwhile is missed
	entries, err := safeio.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || (depth == 3 && strings.HasPrefix(name, ".")) {
			continue // a file; or, among releases, an install's temp directory or hab-gc's own
		}
		sub := filepath.Join(dir, name)
		if depth < 3 {
			w.addTree(sub, depth+1, fresh)
			continue
		}
		rel, _ := w.rel(sub)
		if !w.seen[rel] {
			w.seen[rel] = true
			if fresh {
				w.newRelease(rel)
			}
		}
	}
}

// rel is path relative to the store with slashes, also on Windows.
func (w *watcher) rel(path string) (string, error) {
	rel, err := filepath.Rel(w.store, path)
	return filepath.ToSlash(rel), err
}

// newRelease marks a release's package unless a service loads it: that
// is purged when the service starts (readPIDs).
func (w *watcher) newRelease(rel string) {
	parts := strings.Split(rel, "/")
	if len(parts) != 4 {
		return
	}
	if pkg := (pkgstore.Ident{Origin: parts[0], Name: parts[1]}); !w.loaded(pkg) {
		w.mark(pkg, TriggerUpdate)
	}
}

func (w *watcher) handle(ev fsnotify.Event) {
	if ev.Has(fsnotify.Rename) && w.watched[ev.Name] {
		if rel, err := w.rel(ev.Name); err == nil && !strings.HasPrefix(rel, "..") && strings.Count(rel, "/") <= 2 && rel != "." {
			// Watches follow the moved inodes and report the old paths.
			w.rewatch("a watched directory moved: " + rel)
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		delete(w.watched, ev.Name) // the kernel drops the watch of a removed directory
	}
	under := func(dir string) bool {
		return ev.Name == dir || strings.HasPrefix(ev.Name, dir+string(filepath.Separator)) || strings.HasPrefix(dir, ev.Name+string(filepath.Separator))
	}
	specs, svc := under(w.specsDir), under(w.svcRoot)
	if specs {
		w.watchSpecs() // the directory or one of its parents may have appeared
		w.readSpecs(true)
	}
	if svc {
		w.watchSvc() // hab/svc, one of its parents or a service's directory may have appeared
	}
	if specs || svc {
		w.readPIDs(true)
	}
	if specs || svc {
		return
	}
	rel, err := w.rel(ev.Name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return
	}
	if !ev.Has(fsnotify.Create) {
		return // renames away and removals: an uninstall, or hab-gc's own purge
	}
	parts := strings.Split(rel, "/")
	switch len(parts) {
	case 1, 2, 3: // a new origin, name or version directory
		// Even a dot name: Habitat lists releases below it.
		if len(parts) == 1 && parts[0] == pkgstore.LockFile {
			return
		}
		w.addTree(ev.Name, len(parts), true)
	case 4: // a release renamed into place
		if strings.HasPrefix(parts[3], ".") {
			return // an install's temp directory (its rename will follow), or hab-gc's own
		}
		if !w.seen[rel] {
			w.seen[rel] = true
			w.newRelease(rel)
		}
	}
}

// rewatch sets every watch again on a new inotify watcher.
func (w *watcher) rewatch(why string) {
	if w.fsw == nil {
		return
	}
	w.o.log().Info("setting the watches again", "why", why)
	w.fsw.Close()
	w.fsw = nil
	clear(w.watched)
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.fallBack(err)
		return
	}
	w.fsw = fsw
	w.watchSpecs()
	w.watchSvc()
	w.addTree(w.store, 0, true)
}

// rescan lists the store's releases; with changes, unseen ones are new.
func (w *watcher) rescan(changes bool) {
	w.rescanDir(w.store, "", 0, changes)
}

func (w *watcher) rescanDir(dir, rel string, depth int, changes bool) {
	entries, _ := safeio.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() || (depth == 3 && strings.HasPrefix(e.Name(), ".")) {
			continue // as addTree
		}
		subRel := e.Name()
		if rel != "" {
			subRel = rel + "/" + e.Name()
		}
		if depth == 3 {
			if !w.seen[subRel] {
				w.seen[subRel] = true
				if changes {
					w.newRelease(subRel)
				}
			}
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if w.fsw != nil && !w.watched[sub] {
			w.addTree(sub, depth+1, changes)
			continue
		}
		w.rescanDir(sub, subRel, depth+1, changes)
	}
}
