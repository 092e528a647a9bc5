package artifactcache

import (
	"context"
	"fmt"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// PressureOptions tune PlanPressure. The zero value of each field is its
// default.
type PressureOptions struct {
	// Limits are the free-space thresholds: below MinFree, the cache's
	// archives and then the policy's removals go until MaxFree would be
	// free. The zero Limits (MinFree 0) is never under pressure: nothing
	// is removed. MaxFree below MinFree is an error (pressure.ErrBadLimits).
	Limits pressure.Limits
	// Cache tunes the cache's plan (Options). Its Target and Protect are
	// the store plan's, whatever they are set to; MinAge 0 is the policy's
	// MinAge (the policy's 0: retention.DefaultMinAge).
	Cache Options
	// Scan are the store's scan options; every release is measured
	// (Sizes), to name the largest kept ones when not enough can be freed.
	Scan pkgstore.Options
	// Free reads the free space of the store's file system. Default:
	// pressure.Statfs of the store's directory.
	Free pressure.FreeFunc
}

// PressurePlan is the dry run of a disk-pressure clean-up of a store and
// its artifact cache (`hab-gc run --cache --min-free`): nothing is changed
// until Apply. Close it when done.
type PressurePlan struct {
	// Plan is the store's retention plan, limited to what pressure calls
	// for (pressure.LimitAfter: its reasons say why each release goes or
	// stays).
	Plan *retention.Plan
	// Verdict is pressure's decision: the free space before, the limits
	// in bytes, and what the chosen removals leave missing.
	Verdict pressure.Verdict
	// Files are the cache's decisions, limited too (Limit: the archives go
	// first, so releases are taken only for what they leave missing); nil
	// when the cache was not read.
	Files []File
	// CacheErr says why the cache is not cleaned: ErrNoCache when there
	// is none (nothing to clean), else a cache that could not be read (a
	// refused symlink, an unreadable directory). The store's part goes
	// ahead all the same; nil when the cache was read.
	CacheErr error

	limits pressure.Limits
	cache  *Cache
	free   pressure.FreeFunc
}

// PressureResult is what PressurePlan.Apply did.
type PressureResult struct {
	// Result is the store's (retention.Plan.Apply's; never nil).
	Result *retention.Result
	// Cache is what Remove did with each archive to remove (none when the
	// store's Apply failed: the archives then stay).
	Cache []FileOutcome
	// FreeAfter is the free space read after the run (-1 when it could
	// not be read, or when not under pressure: nothing was removed).
	FreeAfter int64
	// Missing is what is still missing to reach max-free (0: reached, or
	// not under pressure).
	Missing int64
}

// PlanPressure plans a disk-pressure clean-up of store and its artifact
// cache in one call, as `hab-gc run --cache --min-free` does: the store's
// plan under pol (retention.PlanStore at now), the cache's plan from it
// (StateOf, under pressure: only archives of releases that are not
// installed go), then disk pressure on both (Limit on the archives first,
// pressure.LimitAfter on the releases for what they leave missing). At or
// above min-free nothing is removed. Apply carries it out.
func PlanPressure(ctx context.Context, store *pkgstore.Store, pol retention.Policy, now time.Time, opts PressureOptions) (*PressurePlan, error) {
	if err := store.Usable(); err != nil {
		return nil, err
	}
	if err := opts.Cache.Validate(); err != nil {
		return nil, err
	}
	scan := opts.Scan
	scan.Sizes = true
	plan, err := retention.PlanStore(ctx, store, pol, now, scan)
	if err != nil {
		return nil, err
	}
	free := opts.Free
	if free == nil {
		free = pressure.Statfs(store.Path())
	}
	sp, err := free()
	if err != nil {
		return nil, err
	}
	if _, _, err := opts.Limits.Resolve(sp.Total); err != nil {
		return nil, err
	}
	pp := &PressurePlan{Plan: plan, limits: opts.Limits, free: free}
	pp.cache, pp.CacheErr = Open(store.FSRoot())
	if pp.CacheErr == nil {
		co := opts.Cache
		co.Target, co.Protect = plan.Inventory.Target, plan.Protects
		if co.MinAge == 0 {
			co.MinAge = pol.MinAge
		}
		if pp.Files, pp.CacheErr = pp.cache.Plan(ctx, StateOf(plan, true), co); pp.CacheErr != nil {
			pp.cache.Close()
			pp.cache = nil
			if ctx.Err() != nil {
				return nil, pp.CacheErr
			}
		}
	} else {
		pp.cache = nil
	}
	first, err := Limit(pp.Files, sp, opts.Limits)
	if err != nil {
		pp.Close()
		return nil, err
	}
	if pp.Verdict, err = pressure.LimitAfter(plan, sp, opts.Limits, first); err != nil {
		pp.Close()
		return nil, err
	}
	return pp, nil
}

// Close closes the cache PlanPressure opened.
func (pp *PressurePlan) Close() error {
	if pp == nil || pp.cache == nil {
		return nil
	}
	c := pp.cache
	pp.cache = nil
	return c.Close()
}

// Apply carries out the plan: the store's releases first (Plan.Apply with
// opts, which checks everything again under the store's lock), then, only
// when that succeeded, the cache's archives under the store's lock, judged
// again just before they go (Recheck: an archive whose release Apply kept,
// or whose release began to be installed since the plan, stays). Under
// pressure it reads the free space again afterwards. The error is the
// store's Apply's, or the lock's for the cache; the Result is never nil.
func (pp *PressurePlan) Apply(ctx context.Context, store *pkgstore.Store, opts ...retention.ApplyOptions) (*PressureResult, error) {
	if pp == nil || pp.Plan == nil {
		res, err := (*retention.Plan)(nil).Apply(ctx, store, opts...)
		return &PressureResult{Result: res, FreeAfter: -1}, err
	}
	out := &PressureResult{FreeAfter: -1, Missing: pp.Verdict.Short}
	var err error
	out.Result, err = pp.Plan.Apply(ctx, store, opts...)
	if err != nil {
		return out, err
	}
	if pp.cache != nil {
		var o retention.ApplyOptions
		if len(opts) > 0 {
			o = opts[0]
		}
		if out.Cache, err = pp.removeArchives(ctx, store, o, out.Result); err != nil {
			return out, err
		}
	}
	if pp.Verdict.Under {
		if sp, ferr := pp.free(); ferr == nil {
			out.FreeAfter = sp.Avail
			out.Missing = max(pp.Verdict.MaxFree-sp.Avail, 0)
		}
	}
	return out, nil
}

// removeArchives removes the cache's archives to remove under the
// store's lock (taken unless the caller holds it: o.Locked), after
// Recheck.
func (pp *PressurePlan) removeArchives(ctx context.Context, store *pkgstore.Store, o retention.ApplyOptions, res *retention.Result) ([]FileOutcome, error) {
	if o.Locked {
		if err := store.HoldsLock(); err != nil {
			return nil, fmt.Errorf("artifact cache: %w", err)
		}
	} else {
		unlock, err := store.Lock(ctx, retention.LockWait(o.LockTimeout))
		if err != nil {
			return nil, fmt.Errorf("artifact cache: %w", err)
		}
		defer unlock()
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	inv := pp.Plan.Inventory
	Recheck(ctx, store, pp.Files, res, pkgstore.Options{Target: inv.Target, Now: now(), InstallWindow: inv.InstallWindow})
	return pp.cache.Remove(ctx, pp.Files), nil
}
