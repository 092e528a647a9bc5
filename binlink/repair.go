package binlink

import (
	"context"
	"fmt"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// RepairOptions tune Repair. The zero value relinks, for real, waiting
// retention.DefaultLockTimeout for the lock.
type RepairOptions struct {
	// DryRun plans only, under the store's shared lock (or without it
	// where it cannot be taken: Unlocked says why), changing nothing.
	DryRun bool
	// RemoveOnly removes every dangling binlink instead of relinking it
	// (Options.RemoveOnly).
	RemoveOnly bool
	// LockTimeout is how long to wait for the store's lock, as
	// retention.ApplyOptions.LockTimeout (0: the default, negative: no
	// wait).
	LockTimeout time.Duration
	// Scan are the scan's options; Now zero is time.Now().
	Scan pkgstore.Options
	// Unlocked, when set, is told why a dry run reads without the store's
	// lock, before it scans.
	Unlocked func(error)
}

// Validate refuses a negative LockTimeout other than
// retention.NoLockWait (an error wrapping retention.ErrInvalidOptions), as
// retention.ApplyOptions.Validate does. Repair calls it.
func (o RepairOptions) Validate() error {
	return retention.ApplyOptions{LockTimeout: o.LockTimeout}.Validate()
}

// Repair is `hab-gc binlinks`: under the store's lock (exclusive; a dry
// run's shared), it scans the store, refuses a store with blocking
// problems (a *retention.DamagedError, wrapping retention.ErrDamaged:
// which releases are installed is unknown), plans (NewPlan) and, unless a
// dry run, applies the plan (Apply). The plan is returned whenever it was
// made; the result is nil for a dry run or when Apply did not start.
func Repair(ctx context.Context, store *pkgstore.Store, o RepairOptions) (*Plan, *Result, error) {
	if ctx == nil {
		return nil, nil, fmt.Errorf("binlink: %w", retention.ErrNilContext)
	}
	if err := store.Usable(); err != nil {
		return nil, nil, fmt.Errorf("binlink: %w", err)
	}
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	wait := retention.LockWait(o.LockTimeout)
	var unlock func() error
	var err error
	if o.DryRun {
		var without error
		if unlock, without, err = store.ReadLock(ctx, wait); err != nil {
			return nil, nil, err
		}
		if without != nil && o.Unlocked != nil {
			o.Unlocked(without)
		}
	} else if unlock, err = store.Lock(ctx, wait); err != nil {
		return nil, nil, err
	}
	defer unlock()
	scan := o.Scan
	if scan.Now.IsZero() {
		scan.Now = time.Now()
	}
	inv, err := store.Scan(ctx, scan)
	if err != nil {
		return nil, nil, err
	}
	if bl := inv.Blocking(); len(bl) > 0 {
		return nil, nil, &retention.DamagedError{Problems: bl}
	}
	plan, err := NewPlan(store, inv, Options{RemoveOnly: o.RemoveOnly})
	if err != nil || o.DryRun {
		return plan, nil, err
	}
	res, err := Apply(ctx, store, plan)
	return plan, res, err
}
