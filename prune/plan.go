package prune

import (
	"context"
	"errors"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// largestKept is how many of the largest kept releases a run under
// pressure names when not enough can be freed.
const largestKept = 5

// Options say what a prune does. Policy is required (its zero value is
// refused, as retention.PlanStore refuses it); every other field's zero
// value leaves its part out or is its default.
type Options struct {
	// Policy is what to keep (retention.Policy).
	Policy retention.Policy
	// Scan are the store's scan options (retention.PlanStore's). Only the
	// releases the plan removes are measured unless Sizes is set; under
	// Limits, set it to name the largest kept releases when not enough can
	// be freed (LargestKept lists measured releases only).
	Scan pkgstore.Options
	// Limits, when set, put the prune under disk pressure (package
	// pressure): below MinFree, the cache's archives and then the policy's
	// removals go until MaxFree would be free; at or above it nothing is
	// removed. nil: no pressure, the whole plan runs.
	Limits *pressure.Limits
	// Cache, when set, cleans the artifact cache too
	// (FS_ROOT/hab/cache/artifacts) with these options. Their Target and
	// Protect are the store plan's, whatever they are set to; MinAge 0 is
	// the policy's MinAge. nil: the cache is not read.
	Cache *artifactcache.Options
	// Free reads the free space of the store's file system under Limits.
	// Default: pressure.Statfs of the store's directory.
	Free pressure.FreeFunc
	// ToApply says the run is applied straight away, its plan not shown
	// first: the store's plan is then retention.PlanToApply's, which
	// leaves the root finders' probes (write leases, where /proc does not
	// show every process) to Apply, under the lock, where they decide.
	// Under Limits or with Cache the plan decides from what they find (how
	// much to remove, which archives an install holds), and is PlanStore's
	// whatever ToApply says.
	ToApply bool
}

// Run is a planned prune, its dry run: nothing is changed until Apply.
// Close it when done (it holds the cache's directory open).
type Run struct {
	// Plan is the store's retention plan; under Limits, limited to what
	// pressure calls for (its reasons say why each release goes or stays).
	Plan *retention.Plan
	// Verdict is pressure's decision (nil without Limits): the free space
	// before, the limits in bytes, what the chosen removals leave missing.
	Verdict *pressure.Verdict
	// Missing is what the chosen removals, as measured, leave missing to
	// reach max-free (0: nothing, or no Limits); LargestKept, when it is
	// not 0, are up to five of the largest releases the policy keeps,
	// largest first (pressure.LargestKept).
	Missing     int64
	LargestKept []retention.Decision
	// Cache are the cache's decisions (under Limits, limited too); nil
	// without Options.Cache or when the cache was not read.
	Cache []artifactcache.File
	// CacheErr says why the cache is not cleaned (nil when it was read, or
	// without Options.Cache): artifactcache.ErrNoCache when there is none,
	// else the cache could not be read (CacheUnreadable). The store's part
	// goes ahead all the same.
	CacheErr error

	cache *artifactcache.Cache
	free  pressure.FreeFunc
}

// PlanError is Plan's error when the store's plan was made but the rest of
// the prune could not be planned (the free space could not be read, the
// limits are bad, the cache's read was interrupted). Plan is that store's
// plan, unlimited, for a caller that reports or journals it; nothing of it
// is applied.
type PlanError struct {
	Plan *retention.Plan
	Err  error
}

func (e *PlanError) Error() string { return e.Err.Error() }
func (e *PlanError) Unwrap() error { return e.Err }

// Plan plans a prune of store at now (see the package doc): the store's
// plan, the cache's from it with Options.Cache, disk pressure on both with
// Options.Limits. A nil or closed store is refused (pkgstore.ErrNoStore),
// and bad cache options (artifactcache.ErrInvalidOptions) before anything
// is read; the store plan's errors are retention.PlanStore's; an error
// after the store's plan was made is a *PlanError. Bad limits wrap
// pressure.ErrBadLimits.
func Plan(ctx context.Context, store *pkgstore.Store, now time.Time, opts Options) (*Run, error) {
	if err := store.Usable(); err != nil {
		return nil, err
	}
	if opts.Cache != nil {
		if err := opts.Cache.Validate(); err != nil {
			return nil, err
		}
	}
	planStore := retention.PlanStore
	if opts.ToApply && opts.Limits == nil && opts.Cache == nil {
		planStore = retention.PlanToApply
	}
	plan, err := planStore(ctx, store, opts.Policy, now, opts.Scan)
	if err != nil {
		return nil, err
	}
	r := &Run{Plan: plan}
	if opts.Cache != nil {
		if err := r.planCache(ctx, store, *opts.Cache, opts.Limits != nil); err != nil {
			return nil, &PlanError{Plan: plan, Err: err}
		}
	}
	if opts.Limits != nil {
		r.free = opts.Free
		if r.free == nil {
			r.free = pressure.Statfs(store.Path())
		}
		if err := r.limit(*opts.Limits); err != nil {
			r.Close()
			return nil, &PlanError{Plan: plan, Err: err}
		}
	}
	return r, nil
}

// planCache opens and plans the cache. A cache that cannot be opened or
// read is CacheErr; only an interrupted read is an error.
func (r *Run) planCache(ctx context.Context, store *pkgstore.Store, co artifactcache.Options, underPressure bool) error {
	cache, err := artifactcache.Open(store.FSRoot())
	if err != nil {
		r.CacheErr = err
		return nil
	}
	// The run's pins and Only reach the cache (Plan.Protects), and an
	// archive counts for the store's target only.
	co.Target, co.Protect = r.Plan.Inventory.Target, r.Plan.Protects
	if co.MinAge == 0 {
		co.MinAge = r.Plan.Policy.MinAge
	}
	files, err := cache.Plan(ctx, artifactcache.StateOf(r.Plan, underPressure), co)
	if err != nil {
		cache.Close()
		if ctx.Err() != nil {
			return err
		}
		r.CacheErr = err
		return nil
	}
	r.Cache, r.cache = files, cache
	return nil
}

// limit reads the free space and limits the cache's removals, then the
// plan's, to what pressure calls for.
func (r *Run) limit(l pressure.Limits) error {
	sp, err := r.free()
	if err != nil {
		return err
	}
	first, err := artifactcache.Limit(r.Cache, sp, l)
	if err != nil {
		return err
	}
	v, err := pressure.LimitAfter(r.Plan, sp, l, first)
	if err != nil {
		return err
	}
	r.Verdict = &v
	r.Missing, r.LargestKept = missing(r.Plan, v, nil)
	return nil
}

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

// CacheUnreadable reports whether the cache is there but could not be read
// (a level refused as a symlink or not a directory, an unreadable
// directory, a failed listing): CacheErr, unless it only says there is no
// cache.
func (r *Run) CacheUnreadable() bool {
	if r == nil || r.CacheErr == nil {
		return false
	}
	return errors.Is(r.CacheErr, artifactcache.ErrRefused) || !errors.Is(r.CacheErr, artifactcache.ErrNoCache)
}

// Close closes the cache Plan opened.
func (r *Run) Close() error {
	if r == nil || r.cache == nil {
		return nil
	}
	c := r.cache
	r.cache = nil
	return c.Close()
}
