package binlink

import (
	"context"
	"fmt"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// RepairOptions tune Repair; the zero value relinks for real.
type RepairOptions struct {
	DryRun      bool // under the shared lock, or none (Unlocked says why)
	RemoveOnly  bool
	LockTimeout time.Duration // as retention.ApplyOptions'
	Scan        pkgstore.Options
	Unlocked    func(error)
}

func (o RepairOptions) Validate() error {
	return retention.ApplyOptions{LockTimeout: o.LockTimeout}.Validate()
}

// Repair is `hab-gc binlinks`: lock, scan (blocking problems: a
// *retention.DamagedError), plan and, unless a dry run, apply.
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
