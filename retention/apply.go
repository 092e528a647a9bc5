package retention

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// DefaultSettle is how long Apply waits, after hiding the releases it is
// about to delete, before its last check for new dependents.
const DefaultSettle = 2 * time.Second

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// LockTimeout is how long to wait for another hab-gc's lock. The
	// zero value waits DefaultLockTimeout; NoLockWait fails at once;
	// another negative value is refused (Validate).
	LockTimeout time.Duration
	// Locked says the caller already holds the store's lock, taken with
	// Lock on this same Store (as the scheduler does while it checks and
	// records its run), so Apply must not take it again. Apply checks it
	// (Store.HoldsLock): when the Store does not hold the lock, Apply
	// changes nothing and fails wrapping pkgstore.ErrNotLocked.
	Locked bool
	// Settle is the pause between hiding releases and the final check for
	// new dependents (see Apply). The zero value is DefaultSettle;
	// NoSettle is none; another negative value is refused (Validate).
	Settle time.Duration
	// Progress, when set, receives an Event per release handled.
	Progress func(Event)
	// OnPhase, when set, is told when each phase of Apply starts (Done 0)
	// and, while hiding and deleting, after each release (see Phase).
	OnPhase func(PhaseEvent)
	// Logger receives the same events (phases as pkgstore.ReportPhase
	// logs them). Default: discard.
	Logger *slog.Logger
	// Now is the clock its scans tell installs in progress by
	// (pkgstore.Options.Now). Default: time.Now.
	Now func() time.Time
	// Rescan, when set, reads the store for each of Apply's scans in
	// place of Store.Scan (see Rescanner). Default: a full Scan.
	Rescan Rescanner

	// hook, set only by tests, is called at each stage of a release.
	hook func(stage string, id pkgstore.Ident, hidden string)
}

// RemovalStatus is what became of one planned removal.
type RemovalStatus string

const (
	StatusRemoved RemovalStatus = "removed"
	StatusKept    RemovalStatus = "kept"
	StatusFailed  RemovalStatus = "failed"
	// StatusGone: the release was no longer installed when Apply reached
	// it (uninstalled by someone else since the plan; reason CodeGone).
	// Apply neither kept nor removed it.
	StatusGone RemovalStatus = "gone"
	// StatusNotAttempted: Apply stopped (its context was cancelled) before
	// it reached the release, which is untouched.
	StatusNotAttempted RemovalStatus = "not-attempted"
)

// RemovalOutcome is what Apply did with one release the plan removes.
type RemovalOutcome struct {
	Ident   pkgstore.Ident
	Status  RemovalStatus
	Reasons []Reason // why it was kept at revalidation, or is gone
	Bytes   int64    // bytes freed (removed releases)
	// Err is the outcome's one error, a *ReleaseError (what Apply was
	// doing, and the cause, for errors.Is and errors.As): why a
	// StatusFailed release failed, or, for a release kept because it
	// changed since the plan, one wrapping ErrChangedSincePlan. nil
	// otherwise. There is no separate error string: ErrorText is the text
	// reports and the history record.
	Err error `json:"-"`
}

// ErrorText is why a failed release failed, as Report and the history
// record it (ReportOutcome.Error): the text of Err without the ident,
// which the record already names. It is empty unless Status is
// StatusFailed (a release kept because it changed says so in Reasons).
func (o RemovalOutcome) ErrorText() string {
	if o.Status != StatusFailed || o.Err == nil {
		return ""
	}
	var re *ReleaseError
	if errors.As(o.Err, &re) && re.Ident == o.Ident {
		return re.Err.Error()
	}
	return o.Err.Error()
}

// Phase names a step of PlanStore and Apply, in order (pkgstore.Phase:
// one kind of event from the scan to the deletions).
type Phase = pkgstore.Phase

const (
	PhaseScan    Phase = pkgstore.PhaseScan // PlanStore's scan (Total: origin/name directories, once listed)
	PhasePlan    Phase = "planning"         // PlanStore: what is in use, the plan, the sizes of removals
	PhaseLock    Phase = "locking"          // waiting for the store's lock
	PhaseRescan  Phase = "rescanning"       // the store again, under the lock, and revalidating the plan
	PhaseHide    Phase = "hiding"           // renaming releases out of Habitat's sight (Total: planned removals)
	PhaseSettle  Phase = "settling"         // the pause for installs in flight
	PhaseRecheck Phase = "re-checking"      // the store once more, for new dependents
	PhaseDelete  Phase = "deleting"         // the hidden releases no one needs (Total: those hidden)
)

// PhaseEvent reports progress through the phases: Done of Total
// releases handled in the phase (both 0 for phases without a count).
type PhaseEvent = pkgstore.PhaseEvent

// phase reports a phase's progress to OnPhase and the Logger.
func (a *applier) phase(ph Phase, done, total int) {
	pkgstore.ReportPhase(a.opts.OnPhase, a.log, PhaseEvent{Phase: ph, Done: done, Total: total})
}

// Event reports progress.
type Event struct {
	RemovalOutcome
	Done, Total int
}

// Result is what Apply did.
type Result struct {
	Outcomes []RemovalOutcome
	// Removed, Kept, Failed and Gone count Outcomes by status (Kept: kept
	// at revalidation; a release already gone is not kept, it is Gone);
	// Failed also counts Leftovers that could not be deleted.
	Removed, Kept, Failed, Gone int
	// NotAttempted counts releases Apply never reached (it was stopped).
	NotAttempted int
	BytesFreed   int64
	// Leftovers are what Apply did with what an interrupted run left.
	Leftovers []Leftover
	// InstallWait, when not empty, says why Apply kept what the plan
	// removes: its re-scan under the lock, or its last check, found an
	// install in progress (see Plan.InstallWait).
	InstallWait string

	refused bool // see Applied
}

// Leftover is what Apply did with a hidden directory an interrupted run
// left (pkgstore.Inventory.Debris).
type Leftover struct {
	// Path is relative to the store.
	Path string `json:"path"`
	// Status is StatusRemoved (deleted), StatusKept (put back as the
	// release it held, which something needs), StatusFailed (it could not
	// be deleted; counted in Result.Failed) or StatusNotAttempted (not a
	// directory hab-gc made: left alone).
	Status RemovalStatus `json:"status"`
	// Text says why, or what went wrong.
	Text string `json:"text"`
}

// Partial reports whether some removals failed.
func (r *Result) Partial() bool { return r.Failed > 0 }

// Applied reports whether Apply went ahead: false when it refused before
// it touched the store (a bad store, options or plan, the lock, what is
// in use unknown), every planned removal then StatusNotAttempted with
// CodeNotApplied.
func (r *Result) Applied() bool { return r != nil && !r.refused }

// Revalidation reason codes.
const (
	CodeChanged      Code = "changed-since-plan"
	CodeNewDependent Code = "new-dependent"
	CodeGone         Code = "already-gone"
)

// Apply carries out the plan's removals on a live store, safely:
//
//  1. It refuses a store other than the plan's (ErrOtherStore), and takes
//     the store's exclusive lock (Store.Lock).
//  2. It finishes what an interrupted run left (hidden directories): a
//     hidden release something needs is put back with every hidden
//     release it needs (its closure over DEPS and TDEPS), the rest is
//     deleted (see Result.Leftovers).
//  3. It scans the store again (with ApplyOptions.Rescan when set), asks
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
//     CodeMountPoint. It renames the rest once more (so an interrupted run
//     never restores a half-deleted tree), deletes them on their own file
//     system without following any symlink (every directory's device and
//     mount ID is checked before it is entered; deletion stops at a mount
//     point), and removes VERSION, NAME and ORIGIN directories that are
//     left empty (never one that is not).
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
//     started, Apply finishes the release it is deleting and puts back the
//     others. Releases never reached are StatusNotAttempted.
//
// A cancel therefore bounds Apply's remaining work: a Supervisor that
// cancels ctx gets Apply back after at most the deletion of one release
// plus one rename per hidden release (waiting for the lock, the scans and
// the settle pause all stop at once).
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
// PlanStore did not make.
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
		InstallWindow: p.Inventory.InstallWindow, Now: opts.Now()}
	fresh, err := a.scan(ctx, scanOpts)
	if err != nil {
		return nil, err
	}
	// What is in use now, under the lock: a process that started using a
	// release since the plan keeps it, and brings back one an interrupted
	// run hid.
	a.sweepLeases()
	found, err := p.Policy.FindRoots(ctx, fresh)
	if err != nil {
		return nil, err
	}
	// A finder that could not see everything checks the hidden releases an
	// interrupted run left, before finishDebris decides about them.
	if err := probeFound(ctx, found, pendingDirs(fresh)); err != nil {
		return nil, err
	}
	removals := p.hideOrder() // dependents before what they need
	a.total = len(removals)
	if a.finishDebris(fresh, found) > 0 {
		// Releases put back: the plan is checked against the store as it
		// now is, so that what they need stays.
		if fresh, err = a.scan(ctx, scanOpts); err != nil {
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
	freshPlan, err := planProbedGraph(ctx, fresh, graphFrom(fresh, p), p.Policy, p.Now, scanOpts.Now, store.HasUninstallHook, found)
	if err != nil {
		err = fmt.Errorf("revalidating the plan: %w", err)
		a.notAttempted(removals, Reason{CodeChanged, err.Error()})
		return a.res, err
	}

	a.res.InstallWait = freshPlan.InstallWait
	var hidden []hiddenRelease
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
		if unsynced.needs[id] {
			// A release hidden since the last sync needs this one: its
			// hiding must be durable before this one is hidden.
			a.sync(&unsynced)
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
	a.sync(&unsynced)

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
		scanOpts.Now = opts.Now()
		after, err = a.scan(ctx, scanOpts)
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
			for _, h := range hidden {
				a.restore(h, Reason{CodeChanged, "the store could not be checked again: " + err.Error()})
			}
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
	surveys := make([]survey, len(hidden))
	for i, h := range hidden {
		if ctx.Err() != nil {
			return a.stop(hidden, nil) // nothing deleted yet
		}
		if _, ok := back.reason(h.rel.Ident); ok {
			continue
		}
		a.stage("deleting", h.rel.Ident, h.name)
		surveys[i] = a.survey(h.name, h.size < 0)
		if m := surveys[i].mounts; len(m) > 0 {
			back.want(h.rel.Ident, Reason{CodeMountPoint, mountText(pkgstore.StoreDir + "/" + h.rel.Path() + "/" + m[0])}, deps, isHidden)
		}
	}
	if len(hidden) > 0 {
		a.phase(PhaseDelete, 0, len(hidden))
	}
	for i, h := range hidden {
		if ctx.Err() != nil {
			return a.stop(hidden[i:], nil) // between releases
		}
		if i > 0 {
			a.phase(PhaseDelete, i, len(hidden))
		}
		if why, ok := back.reason(h.rel.Ident); ok {
			a.restore(h, why)
			continue
		}
		a.remove(h, surveys[i])
		deleted[h.rel.Ident] = true
	}
	if len(hidden) > 0 {
		a.phase(PhaseDelete, len(hidden), len(hidden))
	}
	return a.res, nil
}

// CodeCancelled keeps a release Apply did not delete because its context
// was cancelled.
const CodeCancelled Code = "cancelled"

// CodeNotApplied: Apply refused (the store, its lock, the options, what
// is in use could not be known...) before it removed anything.
const CodeNotApplied Code = "not-applied"

// stop ends a cancelled run: every hidden release is put back and the
// releases never reached are not attempted.
func (a *applier) stop(hidden []hiddenRelease, rest []Decision) (*Result, error) {
	for _, h := range hidden {
		a.restore(h, Reason{CodeCancelled, "the run was cancelled before this release was deleted; it was put back"})
	}
	a.notAttempted(rest, Reason{CodeCancelled, "the run was cancelled before it reached this release"})
	return a.res, fmt.Errorf("apply stopped early, nothing more was deleted: %w", a.ctx.Err())
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
		a.log.Info("release not removed", attrs...)
	default:
		attrs = append(attrs, "bytes", o.Bytes)
		a.log.Info("release removed", attrs...)
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

type keptError struct{ reason Reason }

func (e *keptError) Error() string { return e.reason.Text }

func debrisName(dir, kind, release string) string {
	return dir + "/" + pkgstore.DebrisPrefix + kind + "-" + release + "-" + rand.Text()[:10]
}

// hide renames a release directory to a pending debris name in its
// VERSION directory, after checking that it is still the planned one.
func (a *applier) hide(r *pkgstore.Release) (hiddenRelease, error) {
	rel := r.Path()
	fi, err := a.root.Lstat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return hiddenRelease{}, &keptError{Reason{CodeGone, "no longer installed"}}
		}
		return hiddenRelease{}, fmt.Errorf("checking %s: %w", rel, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return hiddenRelease{}, &keptError{Reason{CodeChanged, "its directory was replaced by a " + fileKind(fi.Mode()) + " since the plan; left alone"}}
	}
	if dev, ino := pkgstore.DirID(a.root, rel, fi); dev != r.Dev || ino != r.Ino {
		return hiddenRelease{}, &keptError{Reason{CodeChanged, "its directory was replaced since the plan was made"}}
	}
	if held := a.heldFile(rel); held != "" {
		// Windows: a process holds a file of it open (a running program,
		// a loaded DLL), which Windows would not let go.
		return hiddenRelease{}, &keptError{Reason{CodeInUse, "a process holds " + held + " open, so that Windows would not let it be deleted (a running program or a loaded DLL): in use, kept"}}
	}
	dir := path.Dir(rel)
	name := debrisName(dir, "pending", r.Ident.Release)
	a.stage("checked", r.Ident, "")
	if err := a.root.Rename(rel, name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Uninstalled (hab pkg uninstall) since the check above.
			return hiddenRelease{}, &keptError{Reason{CodeGone, "no longer installed (removed by someone else just before hab-gc hid it)"}}
		}
		if heldOpen(err) {
			return hiddenRelease{}, &keptError{Reason{CodeInUse, heldOpenText + " (" + err.Error() + ")"}}
		}
		return hiddenRelease{}, fmt.Errorf("hiding %s: %w", rel, err)
	}
	return hiddenRelease{rel: r, name: name}, nil
}

// syncWorkers bounds the directories Apply fsyncs at once.
const syncWorkers = 16

// hideBatch is what Apply hid since it last synced: the releases, their
// VERSION directories (each once) and every release they need (DEPS and
// TDEPS).
type hideBatch struct {
	hidden []hiddenRelease
	dirs   []string
	seen   map[string]bool
	needs  map[pkgstore.Ident]bool
}

func (b *hideBatch) add(h hiddenRelease) {
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	b.hidden = append(b.hidden, h)
	if dir := path.Dir(h.name); !b.seen[dir] {
		b.seen[dir] = true
		b.dirs = append(b.dirs, dir)
	}
}

// need records what the release ref of graph g needs.
func (b *hideBatch) need(g *depgraph.Graph, ref pkgstore.Ref) {
	if b.needs == nil {
		b.needs = map[pkgstore.Ident]bool{}
	}
	inv := g.Inventory()
	for _, d := range g.Deps(ref) {
		b.needs[inv.Ident(d)] = true
	}
}

// sync makes a batch of hidings durable: it fsyncs each directory a
// release of the batch was renamed in, then empties the batch. Apply
// calls it before it hides a release that one of the batch needs (so that
// after a crash, whatever survives of the renames, no listed release needs
// a hidden one) and once all are hidden, before the settle pause. With
// hideOrder's layers, that is one batch per layer: the directories of a
// batch share a journal commit (on ext4, the first fsync commits them
// all), and their fsyncs overlap.
func (a *applier) sync(b *hideBatch) {
	// Concurrently: an fsync mostly waits for the disk (a cache flush
	// each, even when the journal is already committed), and the disk
	// serves several at once. All are done before the batch counts as
	// synced.
	dirs := make(chan string)
	var wg sync.WaitGroup
	for range min(len(b.dirs), syncWorkers) {
		wg.Go(func() {
			for dir := range dirs {
				a.syncDir(dir)
			}
		})
	}
	for _, dir := range b.dirs {
		dirs <- dir
	}
	close(dirs)
	wg.Wait()
	for _, h := range b.hidden {
		a.stage("synced", h.rel.Ident, h.name)
	}
	*b = hideBatch{}
}

func (a *applier) syncDir(dir string) {
	if f, err := a.store.Root().Open(safeio.Dir(dir)); err == nil { // never a FIFO swapped in
		f.Sync()
		f.Close()
	}
}

// restore puts a hidden release back, unless Habitat installed it again
// meanwhile (then the new copy stays and the hidden one goes).
func (a *applier) restore(h hiddenRelease, why Reason) {
	rel := h.rel.Path()
	if _, err := a.root.Lstat(rel); err == nil {
		if a.ctx.Err() != nil {
			// Stopping: delete nothing more; the next run removes the
			// hidden copy.
			a.done(RemovalOutcome{Ident: h.rel.Ident, Status: StatusKept, Reasons: []Reason{why, {CodeNewDependent, "Habitat installed it again meanwhile; that copy stays, and the next run removes the hidden one"}}})
			return
		}
		a.destroy(h.name, h.rel.Ident.Release, false)
		a.done(RemovalOutcome{Ident: h.rel.Ident, Status: StatusKept, Reasons: []Reason{why, {CodeNewDependent, "Habitat installed it again meanwhile; that copy stays"}}})
		return
	}
	if err := a.root.Rename(h.name, rel); err != nil {
		a.done(RemovalOutcome{Ident: h.rel.Ident, Status: StatusFailed,
			Err: &ReleaseError{Ident: h.rel.Ident, Op: "restore", Err: fmt.Errorf("needed again (%s) but could not be restored from %s: %w", why.Text, h.name, err)}})
		return
	}
	a.syncDir(path.Dir(rel))
	a.done(RemovalOutcome{Ident: h.rel.Ident, Status: StatusKept, Reasons: []Reason{why}})
}

// remove deletes a hidden release for good, surveyed (sv) and found to
// hold no mount point.
func (a *applier) remove(h hiddenRelease, sv survey) {
	a.stage("removing", h.rel.Ident, h.name)
	bytes, err := sv.bytes, sv.err
	if err == nil {
		err = a.finish(h.name, h.rel.Ident.Release)
	}
	if err != nil {
		a.done(RemovalOutcome{Ident: h.rel.Ident, Status: StatusFailed,
			Err: &ReleaseError{Ident: h.rel.Ident, Op: "delete", Err: fmt.Errorf("hidden from Habitat, but not all of it could be deleted (the next run retries): %w", err)}})
		return
	}
	if h.size >= 0 {
		bytes = h.size
	}
	a.done(RemovalOutcome{Ident: h.rel.Ident, Status: StatusRemoved, Bytes: bytes})
}

// survey is what a hidden directory holds before it is deleted: its
// size (when measured), the mount points in it, or why it could not be
// examined.
type survey struct {
	bytes  int64
	mounts []string
	err    error
}

// survey walks a hidden directory (store-relative name) on its own file
// system, measuring it when asked, and lists the mount points in it.
func (a *applier) survey(name string, measure bool) survey {
	top, err := a.root.Open(".")
	if err != nil {
		return survey{err: err}
	}
	defer top.Close()
	parent, err := onefs.OpenDir(top, path.Dir(name))
	if err != nil {
		return survey{err: err}
	}
	defer parent.Close()
	dir, err := onefs.OpenDir(parent, path.Base(name))
	if err != nil {
		return survey{err: err}
	}
	u, err := onefs.Walk(dir, measure)
	dir.Close()
	if err != nil {
		return survey{err: fmt.Errorf("examining %s before deleting it: %w", name, err)}
	}
	return survey{bytes: u.Bytes, mounts: u.Mounts}
}

// destroy deletes a hidden directory (store-relative name) for good.
// First it surveys the tree, measuring it when asked: when the tree holds
// a mount point, nothing is changed and the mount points are returned.
// Otherwise it deletes it (finish).
func (a *applier) destroy(name, release string, measure bool) (bytes int64, mounts []string, err error) {
	sv := a.survey(name, measure)
	if sv.err != nil || len(sv.mounts) > 0 {
		return 0, sv.mounts, sv.err
	}
	return sv.bytes, nil, a.finish(name, release)
}

// finish deletes a surveyed hidden directory: it renames it to a doomed
// name (so a crash can never restore it half deleted), deletes it on its
// own file system without following a symlink (onefs.RemoveAll, which
// stops at a mount point that appears meanwhile), then removes the
// VERSION, NAME and ORIGIN directories if they are empty.
func (a *applier) finish(name, release string) error {
	vdir, base := path.Dir(name), path.Base(name)
	top, err := a.root.Open(".")
	if err != nil {
		return err
	}
	defer top.Close()
	parent, err := onefs.OpenDir(top, vdir)
	if err != nil {
		return err
	}
	defer parent.Close()
	if !strings.HasPrefix(base, pkgstore.DebrisPrefix+"doomed-") {
		doomed := debrisName(vdir, "doomed", release)
		if err := a.root.Rename(name, doomed); err != nil {
			return err
		}
		a.syncDir(vdir)
		base = path.Base(doomed)
	}
	if _, err := onefs.RemoveAll(parent, base); err != nil {
		return err
	}
	a.pruneEmpty(vdir)
	return nil
}

// pruneEmpty removes dir and its parents while they are empty. rmdir(2)
// fails on a non-empty directory, so an install that has just put
// something there wins; "not empty" and "not found" are expected.
func (a *applier) pruneEmpty(dir string) {
	for d := dir; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		fi, err := a.root.Lstat(d)
		if err != nil || !fi.IsDir() {
			return
		}
		if err := a.removeEmptyDir(d); err != nil {
			return // ENOTEMPTY, EEXIST, ENOENT: someone else's now
		}
	}
}

// finishDebris completes what an interrupted run left: doomed directories
// are deleted; pending ones (whole releases hidden before the final check)
// are restored when their place is free and something needs them, or a
// pending one put back needs them (its closure over DEPS and TDEPS, as
// its hidden files name them), and deleted otherwise. Only a directory
// whose name is exactly one hab-gc makes is touched: anything else (a
// symlink, a file, another name) is reported and left alone. One that
// cannot be deleted is a failure, and so is one needed that cannot be put
// back (it stays hidden, for the next run). It returns how many it put
// back.
func (a *applier) finishDebris(inv *pkgstore.Inventory, found []Found) (putBack int) {
	needs := newNeeds(inv, found)
	// The pending leftovers, by the release each holds.
	pending := map[pkgstore.Ident][]string{}
	for _, d := range inv.Debris {
		if id, ok := pendingIdent(d); ok {
			if fi, err := a.root.Lstat(d); err == nil && fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
				pending[id] = append(pending[id], d)
			}
		}
	}
	deps := func(id pkgstore.Ident) []pkgstore.Ident {
		var out []pkgstore.Ident
		for _, d := range pending[id] {
			out = append(out, hiddenDeps(a.root, d)...)
		}
		return out
	}
	isPending := func(id pkgstore.Ident) bool { return len(pending[id]) > 0 }
	back := newPutBack()
	for id := range pending {
		if why, needed := needs.check(id); needed {
			back.want(id, Reason{CodeNewDependent, why}, deps, isPending)
		}
	}
	for _, d := range inv.Debris {
		if a.ctx.Err() != nil {
			return putBack // the next run finishes the rest
		}
		dir := path.Dir(d)
		kind, release, ok := parseDebris(path.Base(d))
		fi, err := a.root.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // finished by someone else
		case err != nil:
			a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "cannot be examined: " + err.Error()})
			continue
		case fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir():
			a.leftover(Leftover{Path: d, Status: StatusNotAttempted, Text: "a " + fileKind(fi.Mode()) + " with a name like hab-gc's hidden directories: not hab-gc's, left alone"})
			continue
		case !ok:
			a.leftover(Leftover{Path: d, Status: StatusNotAttempted, Text: "a directory whose name hab-gc never makes: not hab-gc's, left alone"})
			continue
		}
		if kind == "pending" {
			orig := dir + "/" + release
			if id, ok := pendingIdent(d); ok {
				if why, needed := back.reason(id); needed {
					_, err := a.root.Lstat(orig)
					switch {
					case err == nil:
						// Installed again meanwhile: that copy stays, the
						// hidden one goes (below).
					case !errors.Is(err, fs.ErrNotExist):
						a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "needed (" + why.Text + "), but its place " + orig + " cannot be examined, so it stays hidden for the next run: " + err.Error()})
						continue
					default:
						if err := a.root.Rename(d, orig); err != nil {
							a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "needed (" + why.Text + "), but could not be put back as " + orig + ", so it stays hidden for the next run: " + err.Error()})
							continue
						}
						a.syncDir(dir)
						putBack++
						a.leftover(Leftover{Path: d, Status: StatusKept, Text: "put back as " + orig + ": " + why.Text})
						continue
					}
				}
			}
		}
		_, mounts, err := a.destroy(d, release, false)
		switch {
		case len(mounts) > 0:
			a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "not deleted: " + mountText(pkgstore.StoreDir+"/"+d+"/"+mounts[0])})
		case err != nil:
			a.leftover(Leftover{Path: d, Status: StatusFailed, Text: "could not be deleted: " + err.Error()})
		default:
			a.leftover(Leftover{Path: d, Status: StatusRemoved, Text: "deleted"})
		}
	}
	return putBack
}

// leftover records and logs what was done with a leftover.
func (a *applier) leftover(l Leftover) {
	a.res.Leftovers = append(a.res.Leftovers, l)
	switch l.Status {
	case StatusFailed:
		a.res.Failed++
		a.log.Warn("leftover of an interrupted run", "path", l.Path, "status", string(l.Status), "error", l.Text)
	case StatusNotAttempted:
		a.log.Warn("leftover of an interrupted run", "path", l.Path, "status", string(l.Status), "reason", l.Text)
	default:
		a.log.Info("leftover of an interrupted run", "path", l.Path, "status", string(l.Status), "reason", l.Text)
	}
}

// parseDebris takes apart a name debrisName makes:
// DebrisPrefix + kind + "-" + release + "-" + ten characters of
// rand.Text. Doomed directories of older runs carry "x" for the release.
func parseDebris(name string) (kind, release string, ok bool) {
	rest, ok := strings.CutPrefix(name, pkgstore.DebrisPrefix)
	if !ok {
		return "", "", false
	}
	kind, rest, ok = strings.Cut(rest, "-")
	if !ok || (kind != "pending" && kind != "doomed") {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return "", "", false
	}
	release, suffix := rest[:i], rest[i+1:]
	if len(suffix) != 10 || strings.Trim(suffix, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
		return "", "", false
	}
	if release == "x" && kind == "doomed" {
		return kind, release, true
	}
	if _, err := pkgstore.ParseFullIdent("o/n/v/" + release); err != nil {
		return "", "", false
	}
	return kind, release, true
}

func fileKind(m fs.FileMode) string { return safeio.Kind(m) }

// needs answers whether something in an inventory needs a release that is
// not (or no longer) installed: an installed release or an install in
// progress naming it, a spec it would satisfy better than what is
// installed, a binlink into it, or a RootFinder's root (roots).
type needs struct {
	inv     *pkgstore.Inventory
	byIdent map[pkgstore.Ident]string
	roots   map[pkgstore.Ident][]Reason
	// waitFor, when set, needs every release: an install is running.
	waitFor string
}

func newNeeds(inv *pkgstore.Inventory, found []Found) needs {
	n := needs{inv: inv, byIdent: map[pkgstore.Ident]string{}, roots: rootsByIdent(found)}
	if inv == nil {
		return n
	}
	for _, r := range inv.Releases {
		for _, deps := range [2][]pkgstore.Ref{r.Deps, r.TDeps} {
			for _, d := range deps {
				if inv.ReleaseOf(d) == nil {
					n.byIdent[inv.Ident(d)] = "needed by " + r.Ident.String() + ", installed since the plan"
				}
			}
		}
	}
	held := foundInstalls(found)
	for _, list := range [3][]pkgstore.Installing{held, inv.Installing, inv.Fetched} {
		for _, in := range list {
			for _, d := range in.Deps {
				n.byIdent[d] = "needed by the install in progress at " + installPath(in)
			}
		}
	}
	for _, in := range held {
		if in.Active {
			n.waitFor = heldWhy(in)
			break
		}
	}
	for _, in := range inv.Installing {
		if n.waitFor != "" {
			break
		}
		if in.Active {
			n.waitFor = "an install is in progress at " + installPath(in) + ": removals wait for it to end"
			break
		}
	}
	for _, in := range inv.Fetched {
		// As the plan (installRoots): a download, or a fresh archive whose
		// release is not installed, is an install that may use releases
		// it found installed, which no archive names.
		if n.waitFor != "" || !in.Active {
			continue
		}
		if in.Download {
			n.waitFor = "a download is in progress at " + installPath(in) + ": removals wait for the install to end"
		} else {
			n.waitFor = "the archive " + installPath(in) + " came into the cache within the install window and its release is not installed: removals wait for its install to end"
		}
	}
	if why := depsUnknown(inv); why != "" && n.waitFor == "" {
		n.waitFor = why
	}
	for _, o := range inv.Opaque {
		for _, d := range o.Deps {
			n.byIdent[d] = "named by " + o.Path + ", which Habitat lists as installed but hab-gc cannot read as a release"
		}
	}
	for _, b := range inv.Binlinks {
		for _, id := range b.Covers {
			n.byIdent[id] = coverText(b)
		}
		if b.InStore && b.Release.Origin != "" {
			n.byIdent[b.Release] = "binlink " + b.Path + " points into it"
		}
	}
	return n
}

func (n needs) check(id pkgstore.Ident) (string, bool) {
	if rs := n.roots[id]; len(rs) > 0 {
		return rs[0].Text, true
	}
	if n.inv == nil {
		return "", false
	}
	if why, ok := n.byIdent[id]; ok {
		return why, true
	}
	if n.waitFor != "" {
		return n.waitFor, true
	}
	for _, s := range n.inv.Services {
		if n.inv.MayRun(s, id) {
			return "loaded service " + s.Name + " would run it", true
		}
	}
	return "", false
}
