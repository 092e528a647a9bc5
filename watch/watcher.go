package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// installPrefix starts Habitat's install temp directories (and hab-gc's
// hidden removals, hiddenPrefix).
const (
	installPrefix = ".hab-pkg-install-"
	hiddenPrefix  = ".hab-pkg-install-hab-gc-"
)

// pending is a package waiting for its purge.
type pending struct {
	due     time.Time
	trigger Trigger
	// since is when the Supervisor's package was first found not running
	// its newest release (zero until then); see selfWait.
	since time.Time
}

// selfWait is how long the purge of the Supervisor's own package is tried
// again, every Delay, while the Supervisor does not run its newest
// release yet (it restarts into an update it installed; it may start
// after hab-gc at boot).
const selfWait = time.Hour

// watcher is Run's state; only Run's goroutine touches it.
type watcher struct {
	o        Options
	store    string // FS_ROOT/hab/pkgs
	specsDir string // FS_ROOT/hab/sup/default/specs
	fsw      *fsnotify.Watcher
	fallback bool // rescanning every Delay instead of inotify
	watched  map[string]bool
	specs    map[string]pkgstore.Ident // spec file stem -> ident
	pending  map[pkgstore.Ident]*pending
	unloaded map[pkgstore.Ident]time.Time // package -> when its last spec went
	seen     map[string]bool              // O/N/V/R releases, for rescans
	reads    reads                        // what the next purge's plan reads again
	// syncLost is the inotify watcher one of whose syncs did not see its
	// own event: no later sync of it is trusted.
	syncLost *fsnotify.Watcher
}

// Run watches the store and its specs directory until ctx is done and
// purges each package in scope after a new release of it is installed
// (see the package documentation). It returns nil when ctx is done, or an
// error when it cannot start.
func Run(ctx context.Context, o Options) error {
	if err := o.Store.Usable(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if err := o.Validate(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	w := newWatcher(o)
	defer w.close()
	w.o.log().Info("watching the store", "store", w.store, "specs", w.specsDir, "watches", len(w.watched),
		"fallback", w.fallback, "all", o.All, "delay", o.delay().String(), "on_unload", o.OnUnload)
	w.markAtStart()
	if o.OnStart != nil {
		o.OnStart()
	}
	return w.loop(ctx)
}

// newWatcher sets the watches of o's store and its specs directory
// (falling back to polling when inotify cannot be used) and reads the
// specs. close releases the watches.
func newWatcher(o Options) *watcher {
	root := o.Store.FSRoot()
	w := &watcher{o: o, store: filepath.Join(root, pkgstore.StoreDir), specsDir: filepath.Join(root, pkgstore.SpecsDir),
		watched: map[string]bool{}, specs: map[string]pkgstore.Ident{}, pending: map[pkgstore.Ident]*pending{},
		unloaded: map[pkgstore.Ident]time.Time{}, seen: map[string]bool{}, reads: newReads()}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.fallBack(err)
	} else {
		w.fsw = fsw
	}
	w.readSpecs(false)
	w.watchSpecs()
	w.addTree(w.store, 0, false) // what is installed now is not new
	return w
}

func (w *watcher) close() {
	if w.fsw != nil {
		w.fsw.Close()
	}
}

func (w *watcher) loop(ctx context.Context) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var tick *time.Ticker
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for {
		var due <-chan time.Time
		if next, ok := w.nextDue(); ok {
			d := max(next.Sub(w.o.now()), 0)
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			due = timer.C
		}
		var events chan fsnotify.Event
		var errs chan error
		if w.fsw != nil {
			events, errs = w.fsw.Events, w.fsw.Errors
		}
		var rescan <-chan time.Time
		if w.fallback {
			if tick == nil {
				tick = time.NewTicker(w.o.delay())
			}
			rescan = tick.C
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				w.fallBack(errors.New("the inotify watcher closed"))
				continue
			}
			w.handle(ev)
		case err, ok := <-errs:
			if !ok {
				continue
			}
			w.handleError(err)
		case <-rescan:
			w.readSpecs(true)
			w.rescan(true)
		case <-due:
			w.runDue(ctx)
		}
		if timer != nil && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// handleError reacts to an error of the inotify watcher: events may have
// been lost, so the next plan reads the whole store, and after an
// overflow the store is listed again for new releases.
func (w *watcher) handleError(err error) {
	w.reads.all()
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.o.log().Warn("inotify queue overflowed: rescanning the store", "error", err)
		w.readSpecs(true)
		w.rescan(true)
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
	w.reads.all()
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
	if !w.add(dir) && w.fsw != nil { // before listing: nothing created meanwhile is missed
		w.unwatched(dir, depth)
	}
	entries, err := safeio.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		sub := filepath.Join(dir, name)
		if depth < 3 {
			w.addTree(sub, depth+1, fresh)
			continue
		}
		rel, _ := filepath.Rel(w.store, sub)
		if !w.seen[rel] {
			w.seen[rel] = true
			if fresh {
				w.newRelease(rel)
			}
		}
	}
}

// newRelease notes a release (O/N/V/R) that appeared.
func (w *watcher) newRelease(rel string) {
	parts := strings.Split(rel, "/")
	if len(parts) != 4 {
		return
	}
	w.mark(pkgstore.Ident{Origin: parts[0], Name: parts[1]}, TriggerUpdate)
}

// handle reacts to one inotify event.
func (w *watcher) handle(ev fsnotify.Event) {
	w.changed(ev)
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		delete(w.watched, ev.Name) // the kernel drops the watch of a removed directory
	}
	if ev.Name == w.specsDir || filepath.Dir(ev.Name) == w.specsDir || strings.HasPrefix(w.specsDir, ev.Name+"/") {
		w.watchSpecs() // the directory or one of its parents may have appeared
		w.readSpecs(true)
		return
	}
	rel, err := filepath.Rel(w.store, ev.Name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return
	}
	if !ev.Has(fsnotify.Create) {
		return // renames away and removals: an uninstall, or hab-gc's own purge
	}
	parts := strings.Split(rel, "/")
	if strings.HasPrefix(parts[len(parts)-1], ".") {
		return // an install's temp directory: its rename will follow
	}
	switch len(parts) {
	case 1, 2, 3: // a new origin, name or version directory
		w.addTree(ev.Name, len(parts), true)
	case 4: // a release renamed into place
		if !w.seen[rel] {
			w.seen[rel] = true
			w.newRelease(rel)
		}
	}
}

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

// readSpecs reads the spec files' idents; with changes, a service that
// appeared is purged after Delay (as the Supervisor does after loading
// it), and a package whose last spec went starts its unload grace.
func (w *watcher) readSpecs(changes bool) {
	now := map[string]pkgstore.Ident{}
	entries, err := safeio.ReadDir(w.specsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		w.o.log().Warn("cannot list the specs directory; keeping the services seen before", "error", err)
		return
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
		id, _, err := pkgstore.ParseServiceSpec(stem, data)
		if err != nil {
			if old, ok := w.specs[stem]; ok {
				now[stem] = old // being rewritten: still loaded
			}
			continue
		}
		now[stem] = id
	}
	old := w.specs
	w.specs = now
	if !changes {
		return
	}
	for stem, id := range now {
		if prev, ok := old[stem]; !ok || prev != id {
			delete(w.unloaded, id.Package())
			w.mark(id.Package(), TriggerLoad)
		}
	}
	for stem, id := range old {
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
	for _, id := range w.specs {
		if id.Package() == pkg {
			return true
		}
	}
	return false
}

// isSelf reports whether pkg is the Supervisor's (chef/hab-sup, or its
// core/ predecessor), which the Supervisor purges at start-up when it
// runs its newest release (manager.rs, THIS_SUPERVISOR_FUZZY_IDENT). It
// never purges the launcher's (chef/hab-launcher) or the hab CLI's.
func isSelf(pkg pkgstore.Ident) bool {
	return retention.IsHabitatPackage(pkg) && pkg.Name == "hab-sup"
}

// markAtStart schedules, Delay after Run starts, the purge of every
// loaded service's package and of the Supervisor's own, as the
// Supervisor purges each service as it starts it at start-up
// (add_service_rsw_mlw_rhw_msr calls maybe_uninstall_old_packages) and
// then its own package.
func (w *watcher) markAtStart() {
	for _, id := range w.specs {
		w.mark(id.Package(), TriggerStart)
	}
	for rel := range w.seen {
		parts := strings.Split(rel, "/")
		if pkg := (pkgstore.Ident{Origin: parts[0], Name: parts[1]}); isSelf(pkg) {
			w.mark(pkg, TriggerStart)
		}
	}
}

// specIdents are the idents of the specs that load pkg, sorted.
func (w *watcher) specIdents(pkg pkgstore.Ident) []pkgstore.Ident {
	var out []pkgstore.Ident
	for _, id := range w.specs {
		if id.Package() == pkg {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b pkgstore.Ident) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// inScope reports whether a new release of pkg leads to its purge.
func (w *watcher) inScope(pkg pkgstore.Ident) bool {
	if len(w.o.Policy.Only) > 0 && len(w.onlyFor(pkg)) == 0 {
		return false
	}
	return w.o.All || isSelf(pkg) || w.loaded(pkg)
}

// onlyFor is the Only of pkg's purge: pkg, or Policy.Only's entries of it.
func (w *watcher) onlyFor(pkg pkgstore.Ident) []pkgstore.Ident {
	if len(w.o.Policy.Only) == 0 {
		return []pkgstore.Ident{pkg}
	}
	var out []pkgstore.Ident
	for _, o := range w.o.Policy.Only {
		if o.Package() == pkg {
			out = append(out, o)
		}
	}
	return out
}

// mark schedules pkg's purge Delay from now (a burst of changes moves it).
func (w *watcher) mark(pkg pkgstore.Ident, t Trigger) {
	if !w.inScope(pkg) {
		return
	}
	p := w.pending[pkg]
	if p == nil {
		p = &pending{trigger: t}
		w.pending[pkg] = p
	} else if t != TriggerStart {
		p.trigger = t // an update or a load before the purge at start
	}
	p.due = w.o.now().Add(w.o.delay())
}

// nextDue is the earliest pending purge or unload.
func (w *watcher) nextDue() (time.Time, bool) {
	var next time.Time
	ok := false
	take := func(t time.Time) {
		if !ok || t.Before(next) {
			next, ok = t, true
		}
	}
	for _, p := range w.pending {
		take(p.due)
	}
	for _, t := range w.unloaded {
		take(t.Add(w.o.grace()))
	}
	return next, ok
}

// runDue runs the purges that are due, one at a time, in package order.
func (w *watcher) runDue(ctx context.Context) {
	now := w.o.now()
	var due []pkgstore.Ident
	for pkg, p := range w.pending {
		if !p.due.After(now) {
			due = append(due, pkg)
		}
	}
	var unload []pkgstore.Ident
	for pkg, t := range w.unloaded {
		if !t.Add(w.o.grace()).After(now) {
			unload = append(unload, pkg)
		}
	}
	byName := func(a, b pkgstore.Ident) int { return strings.Compare(a.String(), b.String()) }
	slices.SortFunc(due, byName)
	slices.SortFunc(unload, byName)
	for _, pkg := range due {
		if ctx.Err() != nil {
			return
		}
		if dir, busy := w.installing(pkg); busy {
			w.o.log().Info("an install is in progress; the purge waits", "package", pkg.String(), "install", dir)
			w.pending[pkg].due = w.o.now().Add(w.o.delay())
			continue
		}
		prev := *w.pending[pkg]
		delete(w.pending, pkg)
		p := w.purge(ctx, pkg, prev.trigger)
		switch {
		case errors.Is(p.Err, pkgstore.ErrLocked) || errors.Is(p.Err, errInstalling):
			w.pending[pkg] = &pending{due: w.o.now().Add(w.o.delay()), trigger: prev.trigger, since: prev.since}
		case errors.Is(p.Err, errNotRunning):
			since := prev.since
			if since.IsZero() {
				since = p.Start
			}
			if w.o.now().Sub(since) < selfWait {
				w.pending[pkg] = &pending{due: w.o.now().Add(w.o.delay()), trigger: prev.trigger, since: since}
			}
		}
	}
	for _, pkg := range unload {
		if ctx.Err() != nil {
			return
		}
		delete(w.unloaded, pkg)
		if w.loaded(pkg) {
			continue // loaded again
		}
		if retention.IsHabitatPackage(pkg) {
			w.o.log().Warn("not purging Habitat's own package on unload", "package", pkg.String())
			continue
		}
		if p := w.purge(ctx, pkg, TriggerUnload); errors.Is(p.Err, pkgstore.ErrLocked) || errors.Is(p.Err, errInstalling) {
			w.unloaded[pkg] = w.o.now().Add(w.o.delay() - w.o.grace())
		}
	}
}

// rescan lists the store's releases; with changes, those not seen before
// are new (fallback, overflow). Directories not watched yet are watched.
func (w *watcher) rescan(changes bool) {
	origins, _ := safeio.ReadDir(w.store)
	for _, o := range origins {
		if !o.IsDir() || strings.HasPrefix(o.Name(), ".") {
			continue
		}
		od := filepath.Join(w.store, o.Name())
		if w.fsw != nil && !w.watched[od] {
			w.addTree(od, 1, changes)
			continue
		}
		names, _ := safeio.ReadDir(od)
		for _, n := range names {
			if !n.IsDir() || strings.HasPrefix(n.Name(), ".") {
				continue
			}
			nd := filepath.Join(od, n.Name())
			if w.fsw != nil && !w.watched[nd] {
				w.addTree(nd, 2, changes)
				continue
			}
			versions, _ := safeio.ReadDir(nd)
			for _, v := range versions {
				if !v.IsDir() || strings.HasPrefix(v.Name(), ".") {
					continue
				}
				vd := filepath.Join(nd, v.Name())
				if w.fsw != nil && !w.watched[vd] {
					w.addTree(vd, 3, changes)
					continue
				}
				rels, _ := safeio.ReadDir(vd)
				for _, r := range rels {
					if !r.IsDir() || strings.HasPrefix(r.Name(), ".") {
						continue
					}
					rel := o.Name() + "/" + n.Name() + "/" + v.Name() + "/" + r.Name()
					if !w.seen[rel] {
						w.seen[rel] = true
						if changes {
							w.newRelease(rel)
						}
					}
				}
			}
		}
	}
}
