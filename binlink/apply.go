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
	StatusKept     StepStatus = "kept" // by the plan, or changed since (Why)
	StatusFailed   StepStatus = "failed"
)

// StepOutcome is what Apply did with one step.
type StepOutcome struct {
	Step
	Status StepStatus `json:"status"`
	Why    string     `json:"why,omitempty"`
	Err    error      `json:"-"`
	Error  string     `json:"error,omitempty"`
}

// Result is what Apply did.
type Result struct {
	Outcomes                        []StepOutcome
	Relinked, Removed, Kept, Failed int
}

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

var (
	ErrUnsafeDir = errors.New("binlink directory is a symlink or not a directory")
	ErrOtherRoot = errors.New("binlink: the plan is of another FS root than the store")
)

// Apply carries plan out under store's exclusive lock, which the caller
// holds. Every directory is opened before any change (ErrUnsafeDir: no
// change at all); ctx stops it between steps.
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
