package prune

import (
	"context"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// Result is what Run.Apply did.
type Result struct {
	// Result is the store's (retention.Plan.Apply's; never nil: when it
	// refused, Result.Applied is false).
	Result *retention.Result
	// Cache is what the cache's Remove did with each archive to remove
	// (none when the store's Apply failed: the archives then stay).
	Cache []artifactcache.FileOutcome
	// FreeAfter is the free space read after the run under Limits (-1
	// without Limits, or when it could not be read).
	FreeAfter int64
	// Missing is what is still missing to reach max-free: measured on the
	// free space read after the run when the store's Apply went ahead,
	// else what the chosen removals would leave (0: reached, not under
	// pressure, or no Limits). LargestKept, when it is not 0, are up to
	// five of the largest releases the policy keeps.
	Missing     int64
	LargestKept []retention.Decision
}

// CacheError is Apply's error when the store's removals succeeded but the
// cache's could not go ahead (the store's lock could not be taken again,
// or is not the caller's under ApplyOptions.Locked): the releases' removal
// stands, the archives stay.
type CacheError struct{ Err error }

func (e *CacheError) Error() string { return "artifact cache: " + e.Err.Error() }
func (e *CacheError) Unwrap() error { return e.Err }

// Apply carries out the run: the store's removals first (Plan.Apply with
// opts, which checks everything again under the store's lock); then, only
// when that succeeded, the cache's archives, under the store's lock (taken
// as Apply takes it, waiting opts.LockTimeout, unless opts.Locked: the
// caller holds it), each judged again just before it goes
// (artifactcache.Recheck); then, under Limits, the free space is read
// again. The error is the store's Apply's, or a *CacheError; the Result
// is never nil.
func (r *Run) Apply(ctx context.Context, store *pkgstore.Store, opts ...retention.ApplyOptions) (*Result, error) {
	if r == nil || r.Plan == nil {
		res, err := (*retention.Plan)(nil).Apply(ctx, store, opts...)
		return &Result{Result: res, FreeAfter: -1}, err
	}
	out := &Result{FreeAfter: -1}
	var err error
	out.Result, err = r.Plan.Apply(ctx, store, opts...)
	if err == nil && r.cache != nil {
		var o retention.ApplyOptions
		if len(opts) > 0 {
			o = opts[0]
		}
		out.Cache, err = r.removeArchives(ctx, store, o, out.Result)
	}
	if r.Verdict != nil {
		var after *pressure.Space
		if sp, ferr := r.free(); ferr == nil {
			out.FreeAfter = sp.Avail
			if out.Result.Applied() {
				after = &sp
			}
		}
		out.Missing, out.LargestKept = missing(r.Plan, *r.Verdict, after)
	}
	return out, err
}

// removeArchives removes the cache's archives to remove under the store's
// lock (taken unless the caller holds it: o.Locked), after Recheck.
func (r *Run) removeArchives(ctx context.Context, store *pkgstore.Store, o retention.ApplyOptions, res *retention.Result) ([]artifactcache.FileOutcome, error) {
	if o.Locked {
		if err := store.HoldsLock(); err != nil {
			return nil, &CacheError{err}
		}
	} else {
		unlock, err := store.Lock(ctx, retention.LockWait(o.LockTimeout)) // as Apply waits
		if err != nil {
			return nil, &CacheError{err}
		}
		defer unlock()
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	inv := r.Plan.Inventory
	artifactcache.Recheck(ctx, store, r.Cache, res, pkgstore.Options{Target: inv.Target, Now: now(), InstallWindow: inv.InstallWindow})
	return r.cache.Remove(ctx, r.Cache), nil
}
