package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// errInstalling: the purge waits for an install in progress elsewhere.
var errInstalling = errors.New("an install is in progress")

// policyFor is the policy of pkg's purge: Options.Policy limited to pkg
// (`run --only ORIGIN/NAME`). On unload, none of pkg is kept by count,
// and the scope is not the services' (the spec is gone). Habitat's own
// packages are not services: ServicesOnly does not apply to them.
func (w *watcher) policyFor(pkg pkgstore.Ident, t Trigger) retention.Policy {
	pol := w.o.Policy
	pol.Only = w.onlyFor(pkg)
	if retention.IsHabitatPackage(pkg) {
		pol.ServicesOnly = false
	}
	if t == TriggerUnload {
		pol.ServicesOnly = false
		pol.Only = []pkgstore.Ident{pkg}
		counts := slices.DeleteFunc(slices.Clone(pol.KeepLatestFor), func(c retention.PackageCount) bool { return c.Package == pkg })
		pol.KeepLatestFor = append(counts, retention.PackageCount{Package: pkg, Keep: retention.KeepNone})
	}
	return pol
}

// purge plans the store for pkg and applies the plan (Apply takes the
// store's lock: one purge at a time per store), then logs it, writes it
// to the history and counts it in the metrics.
func (w *watcher) purge(ctx context.Context, pkg pkgstore.Ident, t Trigger) Purge {
	p := Purge{Package: pkg, Trigger: t, Start: w.o.now()}
	pol := w.policyFor(pkg, t)
	log := w.o.log().With("package", pkg.String(), "trigger", string(t))
	scan := w.o.Scan
	scan.Now = p.Start
	if scan.InstallWindow <= 0 {
		scan.InstallWindow = w.o.installWindow()
	}
	p.Plan, p.Err = retention.PlanStore(ctx, w.o.Store, pol, p.Start, scan)
	if p.Err == nil && p.Plan.InstallWait != "" {
		// Elsewhere an install is running (an install directory, a
		// download, a fetched archive not installed yet): the plan keeps
		// everything until it ends (retention's install roots), so wait.
		log.Info("an install is in progress; the purge waits", "why", p.Plan.InstallWait)
		p.Err = errInstalling
		return p
	}
	if p.Err == nil {
		p.Result, p.Err = p.Plan.Apply(ctx, w.o.Store, retention.ApplyOptions{LockTimeout: w.o.LockTimeout, Logger: log, Now: w.o.now})
	}
	p.End = w.o.now()
	if !w.o.NoHistory {
		run := history.Run{ID: fmt.Sprintf("%s-%s-%d", Job, p.Start.UTC().Format("20060102T150405Z"), os.Getpid()),
			Job: Job, JobKey: string(t) + ":" + pkg.String(), Owner: w.o.Schedule, FSRoot: w.o.Store.FSRoot(), Policy: pol}
		if herr := history.Log(p.End, run, p.Plan, p.Result, p.Err); herr != nil {
			log.Warn("the purge's history could not be written", "error", herr)
		}
	}
	if m := w.o.Metrics; m != nil {
		label := metrics.StorePath(w.o.Store.FSRoot())
		if p.Plan != nil {
			rep := p.Plan.Report(p.Result)
			m.ObservePlan(label, rep)
			m.ObserveApply(label, rep.Summary)
		}
		m.ObserveRun(label, Job, p.Start, p.End, p.Err == nil && (p.Result == nil || !p.Result.Partial()))
	}
	switch {
	case p.Err != nil:
		log.Error("purge failed", "error", p.Err, "policy", pol.String())
	default:
		r := p.Result
		log.Info("purged", "removed", r.Removed, "kept_at_revalidation", r.Kept, "already_gone", r.Gone, "failed", r.Failed,
			"bytes_freed", r.BytesFreed, "planned", len(p.Plan.Removals()), "policy", pol.String(),
			"duration", p.End.Sub(p.Start).String())
	}
	if w.o.OnPurge != nil {
		w.o.OnPurge(p)
	}
	return p
}
