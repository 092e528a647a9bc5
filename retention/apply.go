package retention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// Apply carries out the plan's removals on a live store:
//
//  1. It refuses another store (ErrOtherStore) and takes the store's lock.
//  2. It finishes what an interrupted run left: a hidden release something
//     needs is put back with the hidden releases it needs; the rest go.
//  3. It scans, asks the RootFinders (and probes) again and plans again:
//     only releases both plans remove, whose directory is the one planned
//     (device and inode), go on; the rest are kept with the new reasons.
//  4. It hides each with one rename to a pkgstore.DebrisPrefix name in its
//     VERSION directory, dependents before what they need, syncing the
//     hidden ones' directories before hiding a release one of them needs:
//     a kill or power loss at any point leaves no listed release needing a
//     hidden one, and one more run converges.
//  5. After Settle it scans and asks the finders again and puts back every
//     hidden release something new needs, with its hidden closure, all
//     decided before anything is deleted, so a put-back release never
//     lacks a dependency this run hid. One with a mount point inside is put
//     back too (CodeMountPoint).
//  6. It renames the rest to doomed names in the hiding's layers, each
//     synced before the next (a doomed directory is the next run's to
//     delete), then deletes them on up to eight workers without following
//     a symlink or leaving the release's file system, and removes the
//     VERSION, NAME and ORIGIN directories left empty.
//
// One failure does not stop the rest (Result.Partial). The Result is never
// nil and accounts for every planned removal; with an error, Apply stopped
// early: a failed revalidation hides nothing, a failed last scan puts every
// hidden release back, and a cancelled ctx puts back every hidden release
// not being deleted (what each needs first) and leaves the rest
// StatusNotAttempted. Result.Applied is false when Apply refused before it
// touched the store.
func (p *Plan) Apply(ctx context.Context, store *pkgstore.Store, options ...ApplyOptions) (*Result, error) {
	if err := store.Usable(); err != nil {
		return &Result{refused: true}, err
	}
	if p == nil || p.Inventory == nil || p.Graph == nil {
		return &Result{refused: true}, ErrNoPlan
	}
	if ctx == nil {
		return &Result{refused: true}, ErrNilContext
	}
	res, err := p.apply(ctx, store, options...)
	if res == nil {
		res = &Result{refused: true}
		why := Reason{CodeNotApplied, "Apply refused before it removed anything"}
		if err != nil {
			why.Text += ": " + err.Error()
		}
		for _, d := range p.Removals() {
			res.Outcomes = append(res.Outcomes, RemovalOutcome{Ident: d.Release.Ident, Status: StatusNotAttempted, Reasons: []Reason{why}})
			res.NotAttempted++
		}
	}
	return res, err
}

// ErrNoPlan is returned by Apply on a plan Compute or PlanStore did not
// make, and by history.LogContext for a run with neither plan nor error.
var ErrNoPlan = errors.New("no plan: make one with retention.PlanStore or retention.Compute")

func (p *Plan) apply(ctx context.Context, store *pkgstore.Store, options ...ApplyOptions) (*Result, error) {
	if err := store.Usable(); err != nil {
		return nil, err
	}
	opts, err := oneOption(options)
	if err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := p.checkStore(store); err != nil {
		return nil, err
	}
	if !onefs.Supported {
		return nil, fmt.Errorf("removing releases on %s: %w", runtime.GOOS, errors.ErrUnsupported)
	}
	if opts.Settle == 0 {
		opts.Settle = DefaultSettle
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &applier{ctx: ctx, store: store, root: store.Root(), opts: opts, log: log, res: &Result{}}
	defer a.rm.close()
	if opts.Locked {
		if err := store.HoldsLock(); err != nil {
			return nil, fmt.Errorf("ApplyOptions.Locked says the caller holds the store's lock, but it does not, so nothing was changed: %w", err)
		}
	} else {
		a.phase(PhaseLock, 0, 0)
		unlock, err := store.Lock(ctx, LockWait(opts.LockTimeout))
		if err != nil {
			return nil, err
		}
		defer unlock()
	}

	a.phase(PhaseRescan, 0, 0)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	scanOpts := pkgstore.Options{Target: p.Inventory.Target, BinlinkDirs: p.Inventory.BinlinkDirs,
		InstallWindow: p.Inventory.InstallWindow, Now: opts.Now(), Hidden: true}
	fresh, err := store.Scan(ctx, scanOpts)
	if err != nil {
		return nil, err
	}
	found, err := p.Policy.FindRoots(ctx, fresh)
	if err != nil {
		return nil, err
	}
	// Probed in one pass, before anything changes: the removals still
	// listed and an interrupted run's hidden releases.
	a.res.Found = found
	if err := probeFound(ctx, found, append(pendingDirs(fresh), removalDirs(p, fresh)...)); err != nil {
		a.res.Found = nil
		return nil, err
	}
	a.sweepLeases()           // after the finders: a refusal removes no dead lease
	removals := p.hideOrder() // dependents before what they need
	a.total = len(removals)
	if a.finishDebris(fresh, found) > 0 {
		if fresh, err = store.Scan(ctx, scanOpts); err != nil {
			if ctx.Err() != nil {
				return a.stop(nil, removals)
			}
			err = fmt.Errorf("scanning the store after putting back leftovers: %w", err)
			a.notAttempted(removals, Reason{CodeChanged, err.Error()})
			return a.res, err
		}
	}
	if ctx.Err() != nil {
		return a.stop(nil, removals)
	}
	// The plan's clock and Apply's own: a release young by either is kept.
	freshPlan, err := computeAt(fresh, nil, p.Policy, p.Now, scanOpts.Now, uninstallHooks(store, fresh), found)
	if err != nil {
		err = fmt.Errorf("revalidating the plan: %w", err)
		a.notAttempted(removals, Reason{CodeChanged, err.Error()})
		return a.res, err
	}
	take, unknown := takeHidden(p, fresh, freshPlan)
	a.putBackHidden(fresh, take, freshPlan)
	a.total += len(unknown)

	a.res.InstallWait = freshPlan.InstallWait
	a.removeInstallDirs(installDirs(ctx, fresh, found, true))
	var hidden []hiddenRelease
	for _, d := range unknown {
		h := hiddenRelease{rel: d.Release, name: fresh.Hidden[d.Release.Ident], size: d.Release.Size, deps: depsOf(fresh, d.Release)}
		a.stage("hidden", d.Release.Ident, h.name)
		hidden = append(hidden, h)
	}
	var unsynced hideBatch
	a.phase(PhaseHide, 0, len(removals))
	for i, d := range removals {
		if i > 0 {
			a.phase(PhaseHide, i, len(removals))
		}
		if ctx.Err() != nil {
			return a.stop(hidden, removals[i:])
		}
		id := d.Release.Ident
		fd, ok := freshPlan.Decision(id)
		switch {
		case !ok:
			a.done(a.notListed(d.Release))
			continue
		case fd.Action == Keep:
			a.done(RemovalOutcome{Ident: id, Status: StatusKept, Reasons: fd.Reasons})
			continue
		case fd.Release.Dev != d.Release.Dev || fd.Release.Ino != d.Release.Ino:
			a.done(RemovalOutcome{Ident: id, Status: StatusKept, Reasons: []Reason{{CodeChanged, "its directory was replaced since the plan was made"}}})
			continue
		}
		if take[id] {
			// Hidden by an interrupted run: deleted with this run's.
			h := hiddenRelease{rel: fd.Release, name: fresh.Hidden[id], size: d.Release.Size, deps: depsOf(fresh, fd.Release)}
			if h.size < 0 {
				h.size = fd.Release.Size
			}
			a.stage("hidden", id, h.name)
			hidden = append(hidden, h)
			continue
		}
		if unsynced.needs[id] {
			// Its dependent's hiding must be durable before it is hidden.
			a.sync(&unsynced, "synced")
		}
		h, err := a.hide(fd.Release)
		if err != nil {
			a.failOrKeep(id, err)
			continue
		}
		h.size = d.Release.Size // measured with the plan, or -1
		h.deps = depsOf(fresh, fd.Release)
		a.stage("hidden", id, h.name)
		hidden = append(hidden, h)
		// What it needs as the plan saw it and as the store is now.
		unsynced.add(h)
		unsynced.need(p.Graph, d.Release.Ref)
		unsynced.need(freshPlan.Graph, fd.Release.Ref)
	}
	a.sync(&unsynced, "synced")

	if len(removals) > 0 {
		a.phase(PhaseHide, len(removals), len(removals))
	}
	if len(hidden) > 0 && opts.Settle > 0 {
		a.phase(PhaseSettle, 0, 0)
		settle := time.NewTimer(opts.Settle)
		select {
		case <-settle.C:
		case <-ctx.Done():
			settle.Stop()
		}
	}
	if ctx.Err() != nil {
		return a.stop(hidden, nil)
	}
	var after *pkgstore.Inventory
	var foundAfter []Found
	if len(hidden) > 0 {
		a.phase(PhaseRecheck, 0, 0)
		scanOpts.Now, scanOpts.Hidden = opts.Now(), false
		after, err = store.Scan(ctx, scanOpts)
		if err == nil {
			foundAfter, err = p.Policy.FindRoots(ctx, after)
		}
		if err == nil {
			dirs := make([]ProbeDir, len(hidden))
			for i, h := range hidden {
				dirs[i] = ProbeDir{Ident: h.rel.Ident, Path: h.name}
			}
			err = probeFound(ctx, foundAfter, dirs)
		}
		if ctx.Err() != nil {
			return a.stop(hidden, nil)
		}
		if err != nil {
			a.restoreAll(hidden, Reason{CodeChanged, "the store could not be checked again: " + err.Error()})
			return a.res, err
		}
	}
	needs := newNeeds(after, foundAfter)
	if a.res.InstallWait == "" && len(hidden) > 0 {
		a.res.InstallWait = needs.waitFor
	}
	byIdent := map[pkgstore.Ident]hiddenRelease{}
	for _, h := range hidden {
		byIdent[h.rel.Ident] = h
	}
	deleted := map[pkgstore.Ident]bool{}
	deps := func(id pkgstore.Ident) []pkgstore.Ident { return byIdent[id].deps }
	isHidden := func(id pkgstore.Ident) bool { _, ok := byIdent[id]; return ok && !deleted[id] }
	back := newPutBack()
	for _, h := range hidden {
		if rs := needs.roots[h.rel.Ident]; len(rs) > 0 {
			back.want(h.rel.Ident, rs[0], deps, isHidden)
		} else if why, needed := needs.check(h.rel.Ident); needed {
			back.want(h.rel.Ident, Reason{CodeNewDependent, why}, deps, isHidden)
		}
	}
	// Surveyed before anything is deleted, so a put-back's closure is
	// whole whatever its shape (a cycle's members hide in any order).
	surveys, cancelled := a.surveyAll(hidden, back)
	if cancelled {
		return a.stop(hidden, nil) // nothing deleted yet
	}
	for i, h := range hidden {
		if _, ok := back.reason(h.rel.Ident); ok {
			continue
		}
		if m := surveys[i].mounts; len(m) > 0 {
			back.want(h.rel.Ident, Reason{CodeMountPoint, mountText(pkgstore.StoreDir + "/" + h.rel.Path() + "/" + m[0])}, deps, isHidden)
		}
	}
	if len(hidden) > 0 {
		a.phase(PhaseDelete, 0, len(hidden))
	}
	a.doomAll(hidden, surveys, back, deps, isHidden)
	if err := a.deleteAll(hidden, surveys, back, deleted); err != nil {
		return a.res, err
	}
	if len(hidden) > 0 {
		a.phase(PhaseDelete, len(hidden), len(hidden))
	}
	return a.res, nil
}

// stop ends a cancelled run: hidden releases back, the rest not attempted.
func (a *applier) stop(hidden []hiddenRelease, rest []Decision) (*Result, error) {
	a.restoreAll(hidden, cancelledReason())
	a.notAttempted(rest, Reason{CodeCancelled, "the run was cancelled before it reached this release"})
	return a.res, stoppedError(a.ctx)
}

func cancelledReason() Reason {
	return Reason{CodeCancelled, "the run was cancelled before this release was deleted; it was put back"}
}

func stoppedError(ctx context.Context) error {
	return fmt.Errorf("apply stopped early, nothing more was deleted: %w", ctx.Err())
}

func (a *applier) notAttempted(rest []Decision, why Reason) {
	for _, d := range rest {
		a.done(RemovalOutcome{Ident: d.Release.Ident, Status: StatusNotAttempted, Reasons: []Reason{why}})
	}
}

type applier struct {
	ctx   context.Context
	store *pkgstore.Store
	root  *os.Root
	opts  ApplyOptions
	log   *slog.Logger
	res   *Result
	total int
	n     int
	rm    remover // what deleting keeps open from one release to the next
}

type hiddenRelease struct {
	rel  *pkgstore.Release
	name string           // store-relative path of the hidden directory
	size int64            // as the plan measured it; -1: measure when deleting
	deps []pkgstore.Ident // what it needs (DEPS and TDEPS)
}

func (a *applier) stage(stage string, id pkgstore.Ident, hidden string) {
	if a.opts.hook != nil {
		a.opts.hook(stage, id, hidden)
	}
}

func (a *applier) done(o RemovalOutcome) {
	o = o.withErr()
	switch o.Status {
	case StatusRemoved:
		a.res.Removed++
		a.res.BytesFreed += max(o.Bytes, 0)
	case StatusKept:
		a.res.Kept++
	case StatusGone:
		a.res.Gone++
	case StatusFailed:
		a.res.Failed++
	case StatusNotAttempted:
		a.res.NotAttempted++
	}
	a.res.Outcomes = append(a.res.Outcomes, o)
	a.n++
	attrs := []any{"ident", o.Ident.String(), "status", string(o.Status)}
	switch {
	case o.ErrorText() != "":
		attrs = append(attrs, "error", o.ErrorText())
		a.log.Warn("release not removed", attrs...)
	case o.Status == StatusKept || o.Status == StatusNotAttempted || o.Status == StatusGone:
		var why []string
		for _, r := range o.Reasons {
			why = append(why, r.Text)
		}
		attrs = append(attrs, "reasons", strings.Join(why, "; "))
		a.log.Debug("release not removed", attrs...)
	default:
		attrs = append(attrs, "bytes", o.Bytes)
		a.log.Debug("release removed", attrs...)
	}
	if a.opts.progress != nil {
		a.opts.progress(o, a.n, a.total)
	}
}

func (a *applier) failOrKeep(id pkgstore.Ident, err error) {
	var kept *keptError
	if errors.As(err, &kept) {
		st := StatusKept
		if kept.reason.Code == CodeGone {
			st = StatusGone
		}
		a.done(RemovalOutcome{Ident: id, Status: st, Reasons: []Reason{kept.reason}})
		return
	}
	a.done(RemovalOutcome{Ident: id, Status: StatusFailed, Err: &ReleaseError{Ident: id, Op: "hide", Err: err}})
}

// notListed: gone when nothing is at the path, else kept, changed.
func (a *applier) notListed(r *pkgstore.Release) RemovalOutcome {
	fi, err := a.root.Lstat(r.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return RemovalOutcome{Ident: r.Ident, Status: StatusGone, Reasons: []Reason{{CodeGone, "no longer installed"}}}
	}
	why := "it is no longer listed as a release since the plan (see the scan's problems); left alone"
	if err == nil && (fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir()) {
		why = "its directory was replaced by a " + fileKind(fi.Mode()) + " since the plan; left alone"
	}
	return RemovalOutcome{Ident: r.Ident, Status: StatusKept, Reasons: []Reason{{CodeChanged, why}}}
}

func (e *keptError) Error() string { return e.reason.Text }
