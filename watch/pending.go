package watch

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// pending is a package waiting for its purge.
type pending struct {
	due     time.Time
	trigger Trigger
	since   time.Time // first found not running its newest release (selfWait)
	said    string    // the last logged why
}

// selfWait: the Supervisor may restart into an update, or start after
// hab-gc at boot.
const selfWait = time.Hour

// isSelf: chef/hab-sup or its core/ predecessor (manager.rs,
// THIS_SUPERVISOR_FUZZY_IDENT); never the launcher or the hab CLI.
func isSelf(pkg pkgstore.Ident) bool {
	return retention.IsHabitatPackage(pkg) && pkg.Name == "hab-sup"
}

// markAtStart marks every loaded service's package and the Supervisor's,
// as the Supervisor purges at start-up (add_service_rsw_mlw_rhw_msr).
func (w *watcher) markAtStart() {
	for _, sp := range w.specs {
		w.mark(sp.id.Package(), TriggerStart)
	}
	for rel := range w.seen {
		parts := strings.Split(rel, "/")
		if pkg := (pkgstore.Ident{Origin: parts[0], Name: parts[1]}); isSelf(pkg) {
			w.mark(pkg, TriggerStart)
		}
	}
}

func (w *watcher) inScope(pkg pkgstore.Ident) bool {
	if len(w.o.Policy.Only) > 0 && len(w.onlyFor(pkg)) == 0 {
		return false
	}
	if w.down(pkg) {
		return false
	}
	return w.o.All || isSelf(pkg) || w.loaded(pkg)
}

// onlyFor is pkg, or Policy.Only's entries of it in any case (Windows).
func (w *watcher) onlyFor(pkg pkgstore.Ident) []pkgstore.Ident {
	if len(w.o.Policy.Only) == 0 {
		return []pkgstore.Ident{pkg}
	}
	var out []pkgstore.Ident
	for _, o := range w.o.Policy.Only {
		if o.Package() == pkg || o.Package().SatisfiesAnyCase(pkg) {
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
	w.runPurges(ctx, due)
	w.runUnloads(ctx, unload) // none once ctx is done
}

// runPurges: a purge that waits is pending again, Delay from now.
func (w *watcher) runPurges(ctx context.Context, due []pkgstore.Ident) {
	for _, pkg := range due {
		if ctx.Err() != nil {
			return
		}
		if dir, busy := w.installing(pkg); busy {
			w.o.log().Debug("an install is in progress; the purge waits", "package", pkg.String(), "install", dir)
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
			why := strings.TrimPrefix(p.Err.Error(), errNotRunning.Error()+": ")
			if why != prev.said {
				w.o.log().Info("not purging the Supervisor's package; tried again every delay for an hour while it does not run its newest release",
					"package", pkg.String(), "trigger", string(prev.trigger), "why", why)
			}
			if w.o.now().Sub(since) < selfWait {
				w.pending[pkg] = &pending{due: w.o.now().Add(w.o.delay()), trigger: prev.trigger, since: since, said: why}
			}
		}
	}
}

func (w *watcher) runUnloads(ctx context.Context, unload []pkgstore.Ident) {
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
