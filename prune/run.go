package prune

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// Options say what a run does. Policy is required (its zero value is
// refused, as retention.PlanStore refuses it); every other field's zero
// value leaves its part out or is its default.
type Options struct {
	// Policy is what to keep.
	Policy retention.Policy
	// Scan are the store's scan options. Only the releases the plan
	// removes are measured unless Sizes is set; under Limits, set it to
	// name the largest kept releases when not enough can be freed.
	Scan pkgstore.Options
	// Limits, when set, put the run under disk pressure (package
	// pressure). nil: the whole plan runs.
	Limits *pressure.Limits
	// Cache, when set, cleans the artifact cache too with these options.
	// Their Target and Protect are the plan's; MinAge 0 is the policy's.
	Cache *artifactcache.Options
	// Free reads the free space under Limits (default: pressure.Statfs of
	// the store's directory).
	Free pressure.FreeFunc

	// DryRun plans only: the store is read once, without its lock, and
	// nothing is changed or recorded in the history.
	DryRun bool
	// LockTimeout is how long a real run waits for the store's lock
	// (retention.ApplyOptions.LockTimeout's values). Locked says the
	// caller holds it already, on this same Store.
	LockTimeout time.Duration
	Locked      bool
	// Settle is Apply's pause before its last check (ApplyOptions.Settle).
	Settle time.Duration
	// Pace paces the deletions (ApplyOptions.Pace; 0: full speed,
	// retention.PaceAuto: by the latency seen). A dry run deletes nothing.
	Pace time.Duration
	// Refuse, when set, is asked between the plan and its Apply: a
	// non-nil error stops the run there, recorded as it is.
	// RefuseUnmatched is the CLI's.
	Refuse func(*retention.Plan) error

	// Job, JobKey and Owner name the run in the history (history.Run's);
	// Job is the metrics' type too, history.JobRun's metrics.TypePrune.
	// Default: history.JobRun.
	Job, JobKey, Owner string
	// NoHistory leaves the store's history alone; by default every real
	// run that got as far as its plan, or was refused, is written there.
	NoHistory bool
	// Metrics, when set, counts the run under the store's label.
	Metrics *metrics.Metrics
	// Logger receives the phases and Apply's events (optional): at
	// DEBUG, failures at WARN; the run's outcome is the caller's to log.
	Logger *slog.Logger
	// OnPhase is told when each phase starts (Done 0) and of its
	// progress: the lock, the scan, the plan, then Apply's phases.
	OnPhase func(retention.PhaseEvent)
	// OnPlan is called once the plan is made, before anything is applied.
	OnPlan func(*Outcome)

	// Now is the run's time: the plan judges ages by it and the history
	// records it. Zero: Clock's reading.
	Now time.Time
	// Clock is the clock of Apply's checks and of the run's start and end
	// (default time.Now).
	Clock func() time.Time
}

// Validate checks the lock timeout, settle and pace
// (retention.ApplyOptions's values) and the cache options.
func (o Options) Validate() error {
	if err := (retention.ApplyOptions{LockTimeout: o.LockTimeout, Settle: o.Settle, Pace: o.Pace}).Validate(); err != nil {
		return err
	}
	if o.Cache != nil {
		return o.Cache.Validate()
	}
	return nil
}

// Outcome is what a run found and did. Run never returns a nil one.
type Outcome struct {
	// ID names the run in the history (history.RunID).
	ID         string
	Start, End time.Time
	// Plan is the store's plan (nil when it could not be made); under
	// Limits, limited to what pressure calls for.
	Plan *retention.Plan
	// Result is Apply's (nil for a dry run, or when Apply changed
	// nothing: it refused or was not reached).
	Result *retention.Result
	// Verdict is pressure's decision (nil without Limits).
	Verdict *pressure.Verdict
	// FreeAfter is the free space read after a real run under Limits (-1
	// when not read).
	FreeAfter int64
	// Missing is what is still missing to reach max-free (0: nothing, or
	// no Limits); LargestKept, when it is not 0, are up to five of the
	// largest releases the policy keeps.
	Missing     int64
	LargestKept []retention.Decision
	// Cache are the cache's decisions, CacheDone what its Remove did with
	// each archive to remove (none when the store's Apply failed).
	Cache     []artifactcache.File
	CacheDone []artifactcache.FileOutcome
	// CacheErr says why the cache was not cleaned: artifactcache.ErrNoCache
	// when there is none, else it could not be read (CacheUnreadable).
	CacheErr error
	// HistoryErr says why the history could not be written; the run's
	// work stands.
	HistoryErr error

	cache *artifactcache.Cache
	free  pressure.FreeFunc
}

// ErrSkip, wrapped by a Refuse error, stops a run without a record: the
// caller chose not to run it now (an install in progress elsewhere).
var ErrSkip = errors.New("the run is not for now")

// ErrUnmatched is RefuseUnmatched's refusal, followed by the warnings
// about the pins that match nothing.
var ErrUnmatched = errors.New("refusing to run: a pin given on the command line matches nothing installed (a typo?)")

// RefuseUnmatched is an Options.Refuse: a run is refused with
// ErrUnmatched when a pin, Only entry or keep-latest-for count given on
// the command line matches nothing installed, where a typo would remove
// what the operator meant to keep; from a config file or the
// environment, often shared across machines, such a setting only warns.
// onCommandLine says whether a setting was given on the command line: its
// key (SettingExclude, SettingOnly, SettingKeepLatestFor) and, for an
// exclude, the pin's source. A nil onCommandLine refuses nothing.
func RefuseUnmatched(onCommandLine func(key, source string) bool) func(*retention.Plan) error {
	return func(p *retention.Plan) error {
		w := unmatchedRefusals(p, onCommandLine)
		if len(w) == 0 {
			return nil
		}
		var lines []string
		for _, w := range w {
			lines = append(lines, "  "+w.Text)
		}
		return fmt.Errorf("%w:\n%s", ErrUnmatched, strings.Join(lines, "\n"))
	}
}

// ok reports whether a run did all it set out to: no error, no failed
// removal, the cache read and cleaned, enough freed under Limits.
func (o *Outcome) ok(err error) bool {
	if err != nil || (o.Result != nil && o.Result.Partial()) || o.CacheUnreadable() || o.Missing > 0 {
		return false
	}
	for _, f := range o.CacheDone {
		if f.Status == retention.StatusFailed {
			return false
		}
	}
	return true
}

// CacheUnreadable reports whether the cache is there but could not be
// read: CacheErr, unless it only says there is no cache.
func (o *Outcome) CacheUnreadable() bool {
	return o.CacheErr != nil && (errors.Is(o.CacheErr, artifactcache.ErrRefused) || !errors.Is(o.CacheErr, artifactcache.ErrNoCache))
}

// Run runs a prune of store: a real run takes the store's lock (unless
// Locked), plans under it (with the cache's plan and disk pressure, see
// the package doc), asks Refuse, applies the plan with the lock held,
// cleans the cache, then records the run in the history and the metrics.
// A dry run plans without the lock and changes nothing. The error is the
// first that stopped the run; a bad input (a nil store, bad cache options
// or limits) is refused and recorded nowhere.
func Run(ctx context.Context, store *pkgstore.Store, opts Options) (*Outcome, error) {
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	if opts.Job == "" {
		opts.Job = history.JobRun
	}
	o := &Outcome{Start: clock(), FreeAfter: -1}
	o.ID = history.RunID(opts.Job, o.Start)
	if err := store.Usable(); err != nil {
		return o, err
	}
	if err := opts.Validate(); err != nil {
		return o, err
	}
	defer o.close()
	err := o.run(ctx, store, &opts, clock)
	o.End = clock()
	if errors.Is(err, pressure.ErrBadLimits) || errors.Is(err, ErrSkip) {
		return o, err
	}
	o.record(ctx, store, opts, err)
	return o, err
}

// run is Run's work, without the record.
func (o *Outcome) run(ctx context.Context, store *pkgstore.Store, opts *Options, clock func() time.Time) error {
	obs := opts
	if ctx == nil {
		return retention.ErrNilContext
	}
	if !opts.DryRun && !opts.Locked {
		pkgstore.ReportPhase(obs.OnPhase, obs.Logger, retention.PhaseEvent{Phase: retention.PhaseLock})
		unlock, err := store.Lock(ctx, retention.LockWait(opts.LockTimeout))
		if err != nil {
			return err
		}
		defer unlock()
	}
	now := opts.Now
	if now.IsZero() {
		now = o.Start
	}
	scan := opts.Scan
	scan.Now = now
	if scan.OnPhase == nil {
		scan.OnPhase = obs.OnPhase
	}
	if scan.Logger == nil {
		scan.Logger = obs.Logger
	}
	planStore := retention.PlanStore
	if !opts.DryRun && opts.Limits == nil && opts.Cache == nil {
		// Apply probes again under the lock: the plan need not.
		planStore = retention.PlanToApply
	}
	var err error
	if o.Plan, err = planStore(ctx, store, opts.Policy, now, scan); err != nil {
		return err
	}
	if opts.Cache != nil {
		if err := o.planCache(ctx, store, *opts.Cache, opts.Limits != nil); err != nil {
			return err
		}
	}
	if opts.Limits != nil {
		o.free = opts.Free
		if o.free == nil {
			o.free = pressure.Statfs(store.Path())
		}
		if err := o.limit(*opts.Limits); err != nil {
			return err
		}
	}
	if obs.OnPlan != nil {
		obs.OnPlan(o)
	}
	if opts.DryRun {
		return nil
	}
	if opts.Refuse != nil {
		if err := opts.Refuse(o.Plan); err != nil {
			return err
		}
	}
	res, err := o.Plan.Apply(ctx, store, retention.ApplyOptions{Locked: true, Settle: opts.Settle, Pace: opts.Pace,
		OnPhase: obs.OnPhase, Logger: obs.Logger, Now: clock})
	if res.Applied() {
		o.Result = res
	}
	if err == nil && o.cache != nil {
		// Under the run's lock, each archive judged again just before
		// it goes.
		inv := o.Plan.Inventory
		artifactcache.Recheck(ctx, store, o.Cache, res, pkgstore.Options{Target: inv.Target, Now: clock(), InstallWindow: inv.InstallWindow})
		o.CacheDone = o.cache.Remove(ctx, o.Cache)
	}
	if o.Verdict != nil {
		var after *pressure.Space
		if sp, ferr := o.free(); ferr == nil {
			o.FreeAfter = sp.Avail
			if o.Result != nil {
				after = &sp
			}
		}
		o.Missing, o.LargestKept = missing(o.Plan, *o.Verdict, after)
	}
	return err
}

// record writes a real run to the history and counts it in the metrics.
func (o *Outcome) record(ctx context.Context, store *pkgstore.Store, opts Options, err error) {
	if !opts.DryRun && !opts.NoHistory && (o.Plan != nil || err != nil) {
		// The FS root as an absolute path: the journal is read from
		// anywhere.
		fsRoot, aerr := filepath.Abs(store.FSRoot())
		if aerr != nil {
			fsRoot = store.FSRoot()
		}
		pol := opts.Policy
		if o.Plan != nil {
			pol = o.Plan.Policy
		}
		run := history.Run{ID: o.ID, Job: opts.Job, JobKey: opts.JobKey, Owner: opts.Owner, FSRoot: fsRoot, Policy: pol}
		at := opts.Now
		if at.IsZero() {
			at = o.End
		}
		o.HistoryErr = history.LogContext(ctx, at, run, o.Plan, o.Result, err)
	}
	m := opts.Metrics
	if m == nil {
		return
	}
	label := metrics.StorePath(store.FSRoot())
	if o.HistoryErr != nil {
		m.ObserveHistoryFailure(label)
	}
	if o.Plan != nil {
		rep := o.Plan.Report(o.Result)
		m.ObservePlan(label, rep)
		if !opts.DryRun {
			m.ObserveApply(label, rep.Summary)
		}
	}
	if !opts.DryRun {
		typ := opts.Job
		if typ == history.JobRun {
			typ = metrics.TypePrune // hab-gc run counts as a prune
		}
		m.ObserveRun(label, typ, o.Start, o.End, o.ok(err))
	}
}

// planCache opens and plans the cache. A cache that cannot be opened or
// read is CacheErr; only an interrupted read is an error.
func (o *Outcome) planCache(ctx context.Context, store *pkgstore.Store, co artifactcache.Options, underPressure bool) error {
	cache, err := artifactcache.Open(store.FSRoot())
	if err != nil {
		o.CacheErr = err
		return nil
	}
	// The run's pins and Only reach the cache, and an archive counts for
	// the store's target only.
	co.Target, co.Protect = o.Plan.Inventory.Target, o.Plan.Protects
	if co.MinAge == 0 {
		co.MinAge = o.Plan.Policy.MinAge
	}
	files, err := cache.Plan(ctx, artifactcache.StateOf(o.Plan, underPressure), co)
	if err != nil {
		cache.Close()
		if ctx.Err() != nil {
			return err
		}
		o.CacheErr = err
		return nil
	}
	o.Cache, o.cache = files, cache
	return nil
}

// limit reads the free space and limits the cache's removals, then the
// plan's, to what pressure calls for.
func (o *Outcome) limit(l pressure.Limits) error {
	sp, err := o.free()
	if err != nil {
		return err
	}
	first, err := artifactcache.Limit(o.Cache, sp, l)
	if err != nil {
		return err
	}
	v, err := pressure.Limit(o.Plan, sp, l, first)
	if err != nil {
		return err
	}
	o.Verdict = &v
	o.Missing, o.LargestKept = missing(o.Plan, v, nil)
	return nil
}

// largestKept is how many of the largest kept releases a run under
// pressure names when not enough can be freed.
const largestKept = 5

// missing is what a run under v leaves missing (after: the free space read
// after it, nil for what the chosen removals would leave) and, when that
// is not 0, the largest kept releases.
func missing(plan *retention.Plan, v pressure.Verdict, after *pressure.Space) (int64, []retention.Decision) {
	n := v.StillMissing(after)
	if n == 0 {
		return 0, nil
	}
	return n, pressure.LargestKept(plan, largestKept)
}

// close closes the cache the run opened.
func (o *Outcome) close() {
	if o.cache != nil {
		o.cache.Close()
		o.cache = nil
	}
}
