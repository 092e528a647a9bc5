package watch

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// reads is what the next purge's plan must read again of the store: the
// ORIGIN/NAME directories inotify reported a change in since the last
// plan read them, those that are not fully watched, or everything.
// Between purges the watcher keeps the last plan's inventory and graph
// (last), and
// a purge's plan takes again what it read of every other ORIGIN/NAME
// directory (retention.PlanScope); what lies outside them (the top of
// the store, the specs, binlinks, mounts, the artifact cache, leases,
// processes) is read afresh by every plan.
type reads struct {
	last    *retention.Plan         // the last plan's Inventory and Graph alone
	changed map[pkgstore.Ident]bool // ORIGIN/NAME
	// blind are ORIGIN/NAME directories one of whose directories could
	// not be watched: read again by every plan.
	blind map[pkgstore.Ident]bool
	// full: the next plan reads the whole store (an event that could not
	// be attributed, an overflow, no plan yet...); always: every plan does
	// (a directory above the names could not be watched, polling).
	full, always bool
}

func newReads() reads {
	return reads{changed: map[pkgstore.Ident]bool{}, blind: map[pkgstore.Ident]bool{}, full: true}
}

// all makes the next plan read the whole store.
func (r *reads) all() { r.full = true }

// changed notes what an inotify event says changed. Every event under
// an ORIGIN/NAME directory marks it, whatever the event (a release
// renamed in or away, an install directory made, removed or written,
// hab-gc's own hidden directories); an event on the store directory or
// directly in it (an origin made, removed or renamed), other than hab-gc's
// lock file, and the rename of a watched directory (whose watches below
// would report under the old path) make the next plan read everything.
// Events outside the store (the specs) need nothing: every plan reads
// them afresh.
func (w *watcher) changed(ev fsnotify.Event) {
	rel, err := w.rel(ev.Name)
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	if rel == "." {
		w.reads.all()
		return
	}
	parts := strings.Split(rel, "/")
	if len(parts) == 1 {
		if parts[0] != pkgstore.LockFile {
			w.reads.all()
		}
		return
	}
	w.reads.changed[pkgstore.Ident{Origin: parts[0], Name: parts[1]}] = true
	if len(parts) <= 3 && ev.Has(fsnotify.Rename) && w.watched[ev.Name] {
		// A name or version directory moved (Habitat never does): the
		// watches on it and below it stay on the moved directories,
		// reporting their changes under the old path, and the watcher
		// drops the moved one's own when it reads the move's IN_MOVE_SELF,
		// even after it was watched again at its new path (one watch per
		// inode). The watches are set again from scratch.
		w.rewatch("a watched directory moved: " + rel)
	}
}

// rewatch sets every watch again on a new inotify watcher (the old one's
// pending events are dropped), noting the releases not seen before as
// new, as a rescan does; the next plan reads the whole store.
func (w *watcher) rewatch(why string) {
	w.reads.all()
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
	w.addTree(w.store, 0, true)
}

// unwatched notes a directory (at depth, as addTree's) that could not
// be watched: its ORIGIN/NAME directory is read again by every plan, or,
// above the names, the whole store.
func (w *watcher) unwatched(dir string, depth int) {
	rel, err := w.rel(dir)
	parts := strings.Split(rel, "/")
	if err != nil || depth < 2 || len(parts) < 2 {
		w.reads.always = true
		return
	}
	w.reads.blind[pkgstore.Ident{Origin: parts[0], Name: parts[1]}] = true
}

// plan is the purge's plan of the store, a scoped plan of its limited
// policy (retention.PlanScope: the package's releases and what they need
// are decided, not the store): read by a Rescan of the last plan's
// inventory with what changed since, or by a full scan when there is no
// such inventory, events may have been missed, or the watch is polling. What changed is forgotten before
// the store is read (a change from then on is noted again), and the
// plan's inventory is kept for the next purge; when the plan fails, the
// next one reads everything.
func (w *watcher) plan(ctx context.Context, pol retention.Policy, now time.Time, scan pkgstore.Options) (*retention.Plan, error) {
	r := &w.reads
	prev := r.last
	if r.full || r.always || w.fallback {
		prev = nil
	}
	changed := r.names()
	clear(r.changed)
	r.full, r.last = false, nil
	p, err := retention.PlanScope(ctx, w.o.Store, prev, changed, pol, now, scan)
	if err != nil {
		r.full = true
		return p, err
	}
	r.last = &retention.Plan{Inventory: p.Inventory, Graph: p.Graph}
	return p, nil
}

// names are the ORIGIN/NAME directories a plan reads again: those changed
// since the last plan's read began, and those not fully watched; sorted.
func (r *reads) names() []pkgstore.Ident {
	var out []pkgstore.Ident
	for _, m := range []map[pkgstore.Ident]bool{r.changed, r.blind} {
		for id := range m {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b pkgstore.Ident) int { return strings.Compare(a.String(), b.String()) })
	return out
}
