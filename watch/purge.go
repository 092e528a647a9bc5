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

var errNothing = errors.New("nothing to purge")

var errNotRunning = errors.New("the Supervisor does not run its newest release")

// policyFor frees dependencies as the Supervisor's uninstall_many does;
// ok is false when a spec pinned to one release leaves nothing to remove.
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

// scopeFor is what the spec names, as the Supervisor's
// uninstall_all_but_latest(spec.ident, N) lists it
// (components/hab/src/command/pkg/uninstall/uninstall_impl.rs), or the
// whole package when no spec loads it or with WholePackage.
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

// purge runs prune.Run for pkg and logs it in one record.
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
			log.Debug("an install is in progress; the purge waits", "why", plan.InstallWait)
			return fmt.Errorf("%w: %w", prune.ErrSkip, errInstalling)
		}
		if isSelf(pkg) {
			// manager.rs: "Only cleanup supervisor packages if we are
			// running the latest installed version".
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

func (w *watcher) nothingWhy(pkg pkgstore.Ident) string {
	for _, spec := range w.specIdents(pkg) {
		if spec.Release == "" {
			return "what the service's spec names and what --only names of its package have no release in common"
		}
	}
	return "the service's spec names one release"
}

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
