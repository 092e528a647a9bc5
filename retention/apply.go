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

// Apply carries out the plan's removals on a live store, safely:
//
//  1. It refuses a store other than the plan's (ErrOtherStore), and takes
//     the store's exclusive lock (Store.Lock).
//  2. It finishes what an interrupted run left (hidden directories): a
//     hidden release something needs is put back with every hidden
//     release it needs (its closure over DEPS and TDEPS), the rest is
//     deleted (see Result.Leftovers).
//  3. It scans the store again, asks
//     the policy's RootFinders again what
//     is in use, and recomputes the plan with the same policy: only
//     releases that both plans remove, whose directory is
//     still the one planned (same device and inode, not a symlink), go on.
//     The rest are kept, with the fresh plan's reasons.
//  4. It hides each of them with one rename inside its VERSION directory,
//     to a name starting with pkgstore.DebrisPrefix (which Habitat's
//     listing skips): the release disappears from every listing at once,
//     and an install that looks for it from then on installs it afresh.
//     It hides dependents before what they need (reverse topological
//     order over DEPS and TDEPS among the removals), so that if it is
//     killed at any point, no listed release needs a hidden one, and one
//     more run converges. It fsyncs the directories of the releases it
//     has hidden before it hides one that any of them needs (so the order
//     holds after a power loss too) and once all are hidden; releases
//     that need none of each other share one sync.
//  5. After Settle, it scans again, install directories in progress
//     included, asks the RootFinders once more, and restores every hidden
//     release that something new needs (a new dependent, a spec, a
//     binlink, a process that uses it, even under its hidden name),
//     together with every hidden release it needs, transitively (kept
//     with CodeDependency), all decided before anything is deleted: a
//     release put back never lacks a dependency this run hid.
//  6. It examines each of the others (measuring it when the plan did
//     not): one with a mount point inside is put back whole, with reason
//     CodeMountPoint. It renames the rest once more, all before deleting
//     any (so an interrupted run never restores a half-deleted tree), in
//     the hiding's layers, each synced before the next is renamed (a
//     doomed directory is deleted by the next run, so no release still
//     hidden may need one). Then it deletes them, on up to eight
//     workers (each package on one; a release only once every release
//     hidden before it that needs it has been started), on their own
//     file system without following any symlink (every directory's
//     device and mount ID is checked before it is entered; deletion
//     stops at a mount point), and removes VERSION, NAME and ORIGIN
//     directories that are left empty (never one that is not).
//
// One failure does not stop the rest; Result.Partial says so. Apply is
// crash-safe: a kill at any moment leaves every listed release whole, and
// only hidden directories that the next Apply finishes.
//
// # Result and error
//
// Apply returns a nil *Result only when it changed nothing: it could not
// take the lock (ctx ended, or LockTimeout passed), Locked was set but the
// Store does not hold the lock (pkgstore.ErrNotLocked), or the first scan or
// RootFinder failed. Otherwise the Result accounts for every planned
// removal (one RemovalOutcome each) and for the leftovers of interrupted runs,
// and comes with a non-nil error when Apply stopped early:
//
//   - revalidation failed (e.g. the store is now damaged, errors.Is
//     ErrDamaged): nothing was hidden; every removal is StatusNotAttempted;
//   - the last scan failed: every hidden release was put back (StatusKept,
//     CodeChanged);
//   - ctx was cancelled (errors.Is context.Canceled or
//     context.DeadlineExceeded). Before the final check, at any point up to
//     the end of the settle pause, every hidden release is put back
//     (StatusKept, CodeCancelled) and nothing is deleted; once deletion has
//     started, Apply finishes the deletions under way (at most one a
//     worker, eight) and puts back every other hidden release, what each
//     needs before it (so that a kill meanwhile leaves no listed release
//     needing a doomed one); whatever it puts back has every dependency
//     this run hid. Releases never reached are StatusNotAttempted.
//
// A cancel therefore bounds Apply's remaining work: a Supervisor that
// cancels ctx gets Apply back after at most the deletions under way (one
// a worker, side by side) plus one rename per hidden release, their
// directories then synced together, not one release at a time (waiting
// for the lock, the scans and the settle pause all stop at once).
//
// The options are optional: at most one ApplyOptions, none for the
// defaults (see PlanStore for why call sites read this way).
//
// The Result is never nil: when Apply refuses or stops before it reaches
// a release, each planned removal it did not reach is StatusNotAttempted,
// with the reason.
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

// ErrNoPlan is returned by Apply on a nil Plan, or one Compute or
// PlanStore did not make, and by history.LogContext for a run with neither a
// plan nor an error.
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
		// Removal walks each tree without crossing a mount point, which
		// only Linux has here: refuse before hiding anything.
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
	// The plan's scan settings, so that the re-scan judges as the plan did.
	scanOpts := pkgstore.Options{Target: p.Inventory.Target, BinlinkDirs: p.Inventory.BinlinkDirs,
		InstallWindow: p.Inventory.InstallWindow, Now: opts.Now(), Hidden: true}
	fresh, err := store.Scan(ctx, scanOpts)
	if err != nil {
		return nil, err
	}
	// What is in use now, under the lock: a process that started using a
	// release since the plan keeps it, and brings back one an interrupted
	// run hid.
	found, err := p.Policy.FindRoots(ctx, fresh)
	if err != nil {
		return nil, err
	}
	// A finder that could not see everything checks, in one pass, the
	// releases the plan removes that the store still lists (only those
	// can go: a release is removed when both plans remove it; one no
	// longer listed is gone, or left alone) and the hidden releases an
	// interrupted run left, before finishDebris decides about them. A
	// finder that cannot check them refuses the Apply here, before
	// anything changed.
	a.res.Found = found
	if err := probeFound(ctx, found, append(pendingDirs(fresh), removalDirs(p, fresh)...)); err != nil {
		a.res.Found = nil
		return nil, err
	}
	a.sweepLeases()           // after the finders: a refusal removes no dead lease
	removals := p.hideOrder() // dependents before what they need
	a.total = len(removals)
	if a.finishDebris(fresh, found) > 0 {
		// Releases put back: the plan is checked against the store as it
		// now is, so that what they need stays.
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
	// The plan's clock reading, the caller's (a release the plan removes
	// was old enough then, and is older now), and Apply's own (the real
	// clock by default): a release young by it is kept, whatever the
	// plan's clock said.
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
			// A release hidden since the last sync needs this one: its
			// hiding must be durable before this one is hidden.
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
		// What it needs, as the plan saw it (hideOrder's graph) and as
		// the store is now.
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
	// Last check: anything new that needs a hidden release gets it back.
	var after *pkgstore.Inventory
	var foundAfter []Found
	if len(hidden) > 0 {
		a.phase(PhaseRecheck, 0, 0)
		// Hidden releases unlisted, so that what needs one shows.
		scanOpts.Now, scanOpts.Hidden = opts.Now(), false
		after, err = store.Scan(ctx, scanOpts)
		if err == nil {
			// A process that opened, mapped or executed a hidden release
			// (or started in it) since the plan keeps it.
			foundAfter, err = p.Policy.FindRoots(ctx, after)
		}
		if err == nil {
			// A finder that could not see everything checks each hidden
			// release, under its hidden name.
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
	// What comes back: every hidden release something needs now, with
	// all it needs among the hidden (its closure), decided before anything
	// is deleted.
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
	// Every release to delete is surveyed first: one with a mount point
	// inside is put back whole, with all it needs among the hidden,
	// before anything is deleted, so a put-back's closure is whole
	// whatever its shape (a cycle's members are hidden in no particular
	// order among themselves).
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

// stop ends a cancelled run: every hidden release is put back and the
// releases never reached are not attempted.
func (a *applier) stop(hidden []hiddenRelease, rest []Decision) (*Result, error) {
	a.restoreAll(hidden, cancelledReason())
	a.notAttempted(rest, Reason{CodeCancelled, "the run was cancelled before it reached this release"})
	return a.res, stoppedError(a.ctx)
}

// cancelledReason is why a hidden release was put back when the run was
// cancelled.
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
	if a.opts.Progress != nil {
		a.opts.Progress(Event{RemovalOutcome: o, Done: a.n, Total: a.total})
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

// notListed is the outcome of a planned removal the rescan no longer
// lists: gone when nothing is at its path; kept, changed, when something
// else is (a symlink or a file put in its place, which the scan reports
// as a problem and Apply leaves alone).
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
