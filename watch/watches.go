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

// handleError reacts to an error of the inotify watcher: after an
// overflow, events were lost, and the store is listed again for new
// releases.
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

// fallBack stops using inotify: every Delay, the store and the specs are
// listed again and compared with what was seen.
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

// addTree watches dir (the store at depth 0, an origin at 1, a name at 2,
// a version at 3) and the directories below it down to versions; with
// fresh, each release found is new (the directory appeared after Run
// started).
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

// rel is path relative to the store with slashes, O/N/V/R on every
// platform (filepath.Rel gives O\\N\\V\\R on Windows, which the watcher
// splits on "/").
func (w *watcher) rel(path string) (string, error) {
	rel, err := filepath.Rel(w.store, path)
	return filepath.ToSlash(rel), err
}

// newRelease notes a release (O/N/V/R) that appeared: a purge of the
// Supervisor's package, or with All of one no spec loads. A loaded
// service's is purged when the Supervisor starts it on it (readPIDs).
func (w *watcher) newRelease(rel string) {
	parts := strings.Split(rel, "/")
	if len(parts) != 4 {
		return
	}
	if pkg := (pkgstore.Ident{Origin: parts[0], Name: parts[1]}); !w.loaded(pkg) {
		w.mark(pkg, TriggerUpdate)
	}
}

// handle reacts to one inotify event.
func (w *watcher) handle(ev fsnotify.Event) {
	if ev.Has(fsnotify.Rename) && w.watched[ev.Name] {
		if rel, err := w.rel(ev.Name); err == nil && !strings.HasPrefix(rel, "..") && strings.Count(rel, "/") <= 2 && rel != "." {
			// A directory of the store moved (Habitat never does): the
			// watches on it and below it stay on the moved directories,
			// reporting their changes under the old path, and the watcher
			// drops the moved one's own when it reads the move's
			// IN_MOVE_SELF, even after it was watched again at its new path
			// (one watch per inode). The watches are set again from scratch.
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
		// Whatever its name: Habitat lists the releases below one
		// whose name starts with a dot, and so does the scan.
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

// rewatch sets every watch again on a new inotify watcher (the old one's
// pending events are dropped), noting the releases not seen before as
// new, as a rescan does.
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

// rescan lists the store's releases; with changes, those not seen before
// are new (fallback, overflow). Directories not watched yet are watched.
func (w *watcher) rescan(changes bool) {
	w.rescanDir(w.store, "", 0, changes)
}

// rescanDir lists dir (the store at depth 0, an origin at 1, a name at 2,
// a version at 3; rel is its path below the store, O/N/V) for rescan:
// a directory below it not watched yet is watched (addTree), one watched
// is listed in turn, and a release not seen before is new with changes.
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
