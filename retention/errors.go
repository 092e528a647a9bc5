package retention

import (
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrNilContext is returned by PlanStore, PlanToApply and Apply given a
// nil context.
var ErrNilContext = errors.New("nil context")

// ErrChangedSincePlan is wrapped by the RemovalOutcome.Err of a release Apply
// kept because it changed since the plan (replaced, or the store could not
// be checked again): CodeChanged.
var ErrChangedSincePlan = errors.New("changed since the plan")

// ReleaseError is one release's failure in Apply (RemovalOutcome.Err): what Apply
// was doing, and the error, which callers test with errors.Is and
// errors.As (fs.ErrPermission, syscall.EROFS, ErrChangedSincePlan...).
// Errors about the whole run (the store's lock: *pkgstore.LockedError,
// errors.Is pkgstore.ErrLocked) are Apply's own error.
type ReleaseError struct {
	Ident pkgstore.Ident
	// Op is what failed: "hide", "restore", "delete" or "revalidate".
	Op  string
	Err error
}

func (e *ReleaseError) Error() string { return e.Ident.String() + ": " + e.Op + ": " + e.Err.Error() }

func (e *ReleaseError) Unwrap() error { return e.Err }

// withErr fills o.Err for a release kept because it changed since the
// plan, when the caller did not.
func (o RemovalOutcome) withErr() RemovalOutcome {
	if o.Err != nil || o.Status != StatusKept {
		return o
	}
	for _, r := range o.Reasons {
		if r.Code == CodeChanged {
			o.Err = &ReleaseError{Ident: o.Ident, Op: "revalidate", Err: fmt.Errorf("%w: %s", ErrChangedSincePlan, r.Text)}
			break
		}
	}
	return o
}
