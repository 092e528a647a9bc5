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

// Options: Policy is required (its zero value is refused); every other
// zero value leaves its part out or is its default.
type Options struct {
	Policy retention.Policy
	// Scan measures only the removals unless Sizes is set (which, under
	// Limits, names the largest kept releases when too little is freed).
	Scan   pkgstore.Options
	Limits *pressure.Limits // nil: the whole plan runs
	// Cache cleans the artifact cache too, with the plan's Target and
	// Protect; MinAge 0 is the policy's.
	Cache *artifactcache.Options
	Free  pressure.FreeFunc // default: Statfs of the store

	DryRun      bool
	LockTimeout time.Duration
	Locked      bool // the caller holds the lock, on this same Store
	Settle      time.Duration
	Pace        time.Duration
	// Refuse is asked between the plan and Apply; its error stops the
	// run, recorded as it is.
	Refuse func(*retention.Plan) error

	// Job (default history.JobRun, which counts as metrics.TypePrune),
	// JobKey and Owner name the run in the history.
	Job, JobKey, Owner string
	NoHistory          bool
	Metrics            *metrics.Metrics
	// Logger gets phases and Apply's events at DEBUG, failures at WARN;
	// the outcome is the caller's to log.
	Logger  *slog.Logger
	OnPhase func(retention.PhaseEvent)
	OnPlan  func(*Outcome) // before anything is applied

	Now   time.Time        // the plan's and history's; zero: Clock's
	Clock func() time.Time // Apply's checks, the run's start and end
}

func (o Options) Validate() error {
	if err := (retention.ApplyOptions{LockTimeout: o.LockTimeout, Settle: o.Settle, Pace: o.Pace}).Validate(); err != nil {
		return err
	}
	if o.Cache != nil {
		return o.Cache.Validate()
	}
	return nil
}

// Outcome is never nil.
type Outcome struct {
	ID         string
	Start, End time.Time
	Plan       *retention.Plan   // under Limits, limited
	Result     *retention.Result // nil when Apply changed nothing
	Verdict    *pressure.Verdict
	FreeAfter  int64 // -1: not read
	// Missing is still missing to reach max-free; then LargestKept names
	// up to five of the largest releases the policy keeps.
	Missing     int64
	LargestKept []retention.Decision
	Cache       []artifactcache.File
	CacheDone   []artifactcache.FileOutcome // none when Apply failed
	CacheErr    error                       // ErrNoCache, or see CacheUnreadable
	HistoryErr  error                       // the run's work stands

	cache *artifactcache.Cache
	free  pressure.FreeFunc
}

// ErrSkip, wrapped by a Refuse error, stops a run without a record.
var ErrSkip = errors.New("the run is not for now")

var ErrUnmatched = errors.New("refusing to run: a pin given on the command line matches nothing installed (a typo?)")

// RefuseUnmatched refuses a run when a pin, Only entry or keep-latest-for
// count given on the command line matches nothing installed (a typo would
// remove what was meant to be kept); from a shared config file it only
// warns. onCommandLine gets a Setting key and, for an exclude, its source.
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

// ok: no error, no failed removal, the cache cleaned, enough freed.
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

// CacheUnreadable: CacheErr, unless it only says there is no cache.
func (o *Outcome) CacheUnreadable() bool {
	return o.CacheErr != nil && (errors.Is(o.CacheErr, artifactcache.ErrRefused) || !errors.Is(o.CacheErr, artifactcache.ErrNoCache))
}

// Run returns the first error that stopped the run; bad input is refused
// and recorded nowhere.
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

func (o *Outcome) record(ctx context.Context, store *pkgstore.Store, opts Options, err error) {
	if !opts.DryRun && !opts.NoHistory && (o.Plan != nil || err != nil) {
		// Absolute: the journal is read from anywhere.
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

// planCache: a cache that cannot be read is CacheErr; only an interrupted
// read is an error.
func (o *Outcome) planCache(ctx context.Context, store *pkgstore.Store, co artifactcache.Options, underPressure bool) error {
	cache, err := artifactcache.Open(store.FSRoot())
	if err != nil {
		o.CacheErr = err
		return nil
	}
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

const largestKept = 5

func missing(plan *retention.Plan, v pressure.Verdict, after *pressure.Space) (int64, []retention.Decision) {
	n := v.StillMissing(after)
	if n == 0 {
		return 0, nil
	}
	return n, pressure.LargestKept(plan, largestKept)
}

func (o *Outcome) close() {
	if o.cache != nil {
		o.cache.Close()
		o.cache = nil
	}
}
