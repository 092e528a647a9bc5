package watch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

// errInstalling: the purge waits for an install in progress elsewhere.
var errInstalling = errors.New("an install is in progress")

// errNothing: the purge has nothing it may remove (a spec pinned to one
// release).
var errNothing = errors.New("nothing to purge")

// errNotRunning: the Supervisor's package is not purged, as its newest
// release is not the one running.
var errNotRunning = errors.New("the Supervisor does not run its newest release")

// policyFor is the policy of pkg's purge: Options.Policy limited to what
// the purge is about (see scopeFor), with the freed-dependency rule
// (retention.Policy.FreeDeps: the dependencies only the removed releases
// needed go, whatever their own package's count, as the Supervisor's
// uninstall_many removes them; NoDeps keeps them). On unload, none of pkg
// is kept by count, over the whole package (the spec is gone). Habitat's
// own packages are not services: ServicesOnly does not apply to them. ok
// is false when the purge has nothing it may remove (a spec pinned to one
// release, as the Supervisor's package_list of it lists that one only).
func (w *watcher) policyFor(pkg pkgstore.Ident, t Trigger) (pol retention.Policy, ok bool) {
	pol = w.o.Policy
	pol.FreeDeps = true
	if retention.IsHabitatPackage(pkg) {
		pol.ServicesOnly = false
	}
	if t == TriggerUnload {
		pol.ServicesOnly = false
		pol.Only = []pkgstore.Ident{pkg}
		counts := slices.DeleteFunc(slices.Clone(pol.KeepLatestFor), func(c retention.PackageCount) bool { return c.Package == pkg })
		pol.KeepLatestFor = append(counts, retention.PackageCount{Package: pkg, Keep: retention.KeepNone})
		return pol, true
	}
	pol.Only = w.scopeFor(pkg)
	return pol, len(pol.Only) > 0
}

// scopeFor is the Only of pkg's purge. For a loaded service, by default,
// what its spec names, as the Supervisor's
// uninstall_all_but_latest(spec.ident, N) lists it (habitat-sh/habitat
// components/hab/src/command/pkg/uninstall/uninstall_impl.rs): core/redis,
// or core/redis/6.2.5, whose newest N are kept and whose other versions
// are not touched; a spec pinned to a release names nothing to remove.
// With WholePackage, or for a package no spec loads (Habitat's own, All),
// the whole package. Either is limited further to Policy.Only's entries
// of pkg when Only is set.
func (w *watcher) scopeFor(pkg pkgstore.Ident) []pkgstore.Ident {
	only := w.onlyFor(pkg)
	if w.o.WholePackage || retention.IsHabitatPackage(pkg) || !w.loaded(pkg) {
		return only
	}
	var out []pkgstore.Ident
	for _, spec := range w.specIdents(pkg) {
		if spec.Release != "" {
			continue
		}
		for _, o := range only {
			switch {
			case spec.Version == "":
				out = append(out, o)
			case o.Version == "" || o.Version == spec.Version:
				out = append(out, spec)
			}
		}
	}
	slices.SortFunc(out, func(a, b pkgstore.Ident) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(out)
}

// purge runs the store's prune for pkg (prune.Run, which takes the
// store's lock and reads the store under it: one purge at a time per
// store), with the policy limited to pkg (policyFor), then logs it in one
// record (its phases and each release at DEBUG, by prune.Run). It waits,
// without an INFO record, while an install runs elsewhere, and for the
// Supervisor's own package while it does not run the newest release.
func (w *watcher) purge(ctx context.Context, pkg pkgstore.Ident, t Trigger) Purge {
	p := Purge{Package: pkg, Trigger: t, Outcome: &prune.Outcome{Start: w.o.now()}}
	p.End = p.Start
	log := w.o.log().With("package", pkg.String(), "trigger", string(t))
	pol, ok := w.policyFor(pkg, t)
	if !ok {
		log.Info("nothing to purge: "+w.nothingWhy(pkg), "specs", fmt.Sprint(w.specIdents(pkg)))
		p.Err = errNothing
		return p
	}
	scan := w.o.Scan
	if scan.InstallWindow <= 0 {
		scan.InstallWindow = w.o.installWindow()
	}
	refuse := func(plan *retention.Plan) error {
		if plan.InstallWait != "" {
			// Elsewhere an install is running (an install directory, a
			// download, a fetched archive not installed yet): the plan
			// keeps everything until it ends (retention's install
			// roots), so wait.
			log.Debug("an install is in progress; the purge waits", "why", plan.InstallWait)
			return fmt.Errorf("%w: %w", prune.ErrSkip, errInstalling)
		}
		if isSelf(pkg) {
			// The Supervisor purges its own package only when it runs
			// the newest release installed (manager.rs: "Only cleanup
			// supervisor packages if we are running the latest installed
			// version"; a development build may run none of them).
			if err := w.selfRunsNewest(ctx, plan.Inventory, pkg); err != nil {
				return fmt.Errorf("%w: %w: %w", prune.ErrSkip, errNotRunning, err)
			}
		}
		return nil
	}
	p.Outcome, p.Err = prune.Run(ctx, w.o.Store, prune.Options{Policy: pol, Scan: scan, LockTimeout: w.o.LockTimeout,
		Settle: w.o.Settle, Pace: w.o.Pace, Refuse: refuse, Job: Job, JobKey: string(t) + ":" + pkg.String(), Owner: w.o.Schedule,
		NoHistory: w.o.NoHistory, Metrics: w.o.Metrics, Logger: log, Clock: w.o.now})
	if errors.Is(p.Err, prune.ErrSkip) {
		return p
	}
	if p.HistoryErr != nil {
		log = log.With("history_error", p.HistoryErr.Error())
	}
	var r retention.Result
	if p.Result != nil {
		r = *p.Result
	}
	var attrs []any
	if p.Plan != nil {
		removed, kept := removedAndKept(p)
		attrs = []any{"removed", r.Removed, "kept", kept, "failed", r.Failed, "bytes_freed", r.BytesFreed, "releases", strings.Join(removed, " ")}
	}
	attrs = append(attrs, "run_id", p.ID, "policy", pol.String(), "duration", p.End.Sub(p.Start).String(), "paced", r.Paced.String())
	switch {
	case p.Err != nil && ctx.Err() != nil:
		// A requested stop: what was hidden is put back (retention's
		// Apply), nothing failed.
		log.Info("purge stopped", append(attrs, "why", context.Cause(ctx).Error())...)
	case p.Err != nil:
		log.Error("purge failed", append(attrs, "error", p.Err)...)
	default:
		log.Info("purged", attrs...)
	}
	if w.o.OnPurge != nil {
		w.o.OnPurge(p)
	}
	return p
}

// nothingWhy says why pkg's purge has nothing it may remove (policyFor's
// ok false): every spec that loads it names one release, or what the
// specs name and what Policy.Only names of pkg have no release in common
// (a spec pinned to core/redis/6.2.5, --only core/redis/7.0.0).
func (w *watcher) nothingWhy(pkg pkgstore.Ident) string {
	for _, spec := range w.specIdents(pkg) {
		if spec.Release == "" {
			return "what the service's spec names and what --only names of its package have no release in common"
		}
	}
	return "the service's spec names one release"
}

// removedAndKept are the releases p removed, and how many of its
// package's releases it left installed.
func removedAndKept(p Purge) (removed []string, kept int) {
	gone := map[pkgstore.Ident]bool{}
	if p.Result != nil {
		for _, o := range p.Result.Outcomes {
			switch o.Status {
			case retention.StatusRemoved:
				removed = append(removed, o.Ident.String())
				fallthrough
			case retention.StatusGone:
				gone[o.Ident] = true
			}
		}
	}
	if p.Plan != nil {
		for _, d := range p.Plan.Decisions {
			if d.Release.Ident.Package() == p.Package && !gone[d.Release.Ident] {
				kept++
			}
		}
	}
	return removed, kept
}
