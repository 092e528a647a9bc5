package binlink

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// StepStatus is what became of one step.
type StepStatus string

const (
	StatusRelinked StepStatus = "relinked"
	StatusRemoved  StepStatus = "removed"
	// StatusKept: left alone, by the plan (ActionLeave) or because the
	// link changed since the plan (StepOutcome.Why says how).
	StatusKept   StepStatus = "kept"
	StatusFailed StepStatus = "failed"
)

// StepOutcome is what Apply did with one step.
type StepOutcome struct {
	Step
	Status StepStatus `json:"status"`
	// Why says why a step was kept.
	Why string `json:"why,omitempty"`
	// Err is why it failed.
	Err   error  `json:"-"`
	Error string `json:"error,omitempty"`
}

// Result is what Apply did.
type Result struct {
	Outcomes                        []StepOutcome
	Relinked, Removed, Kept, Failed int
}

// Partial reports whether some step failed.
func (r *Result) Partial() bool { return r != nil && r.Failed > 0 }

func (r *Result) add(o StepOutcome) {
	if o.Err != nil {
		o.Status, o.Error = StatusFailed, o.Err.Error()
	}
	switch o.Status {
	case StatusRelinked:
		r.Relinked++
	case StatusRemoved:
		r.Removed++
	case StatusKept:
		r.Kept++
	case StatusFailed:
		r.Failed++
	}
	r.Outcomes = append(r.Outcomes, o)
}

// ErrUnsafeDir is wrapped by Apply's error when a binlink directory with
// something to change is a symlink, or below one, or not a directory:
// Apply then changes nothing at all.
var ErrUnsafeDir = errors.New("binlink directory is a symlink or not a directory")

// ErrOtherRoot is returned by Apply for a plan of another FS root.
var ErrOtherRoot = errors.New("binlink: the plan is of another FS root than the store")

// Apply carries plan out (see the package documentation). The caller holds
// store's exclusive lock (pkgstore.Store.Lock); without it Apply changes
// nothing and returns an error wrapping pkgstore.ErrNotLocked. Every
// binlink directory with something to change is opened first: one that is
// a symlink fails Apply with ErrUnsafeDir before any change. A step whose
// link changed since the plan is kept; one whose change fails is failed
// (Result.Partial), and the others go on. ctx stops Apply between steps
// (its error is returned with what was done so far).
func Apply(ctx context.Context, store *pkgstore.Store, plan *Plan) (*Result, error) {
	if store == nil || plan == nil {
		return nil, errors.New("binlink: Apply needs the store and a plan")
	}
	if ctx == nil {
		return nil, fmt.Errorf("binlink: %w", retention.ErrNilContext)
	}
	if plan.FSRoot != store.FSRoot() {
		return nil, fmt.Errorf("%w (%s, %s)", ErrOtherRoot, plan.FSRoot, store.FSRoot())
	}
	if err := store.HoldsLock(); err != nil {
		return nil, fmt.Errorf("binlink: %w", err)
	}
	dirs := map[string]dir{}
	defer func() {
		for _, d := range dirs {
			d.close()
		}
	}()
	for _, s := range plan.Steps {
		if s.Action == ActionLeave {
			continue
		}
		dn := path.Dir(s.Link)
		if _, ok := dirs[dn]; ok {
			continue
		}
		d, err := openDir(store.FSRoot(), dn)
		if err != nil {
			return nil, err
		}
		dirs[dn] = d
	}
	res := &Result{}
	for _, s := range plan.Steps {
		if s.Action == ActionLeave {
			res.add(StepOutcome{Step: s, Status: StatusKept, Why: s.Reason})
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		res.add(dirs[path.Dir(s.Link)].apply(store, s, plan.beforeChange))
	}
	for _, d := range dirs {
		d.sync()
	}
	return res, nil
}
