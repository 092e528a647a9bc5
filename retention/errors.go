package retention

import (
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrNilContext refuses a nil context.
var ErrNilContext = errors.New("nil context")

// ErrChangedSincePlan is wrapped by the Err of a release kept as
// CodeChanged.
var ErrChangedSincePlan = errors.New("changed since the plan")

// ReleaseError is one release's failure in Apply (RemovalOutcome.Err).
type ReleaseError struct {
	Ident pkgstore.Ident
	// Op is what failed: "hide", "restore", "delete" or "revalidate".
	Op  string
	Err error
}

func (e *ReleaseError) Error() string { return e.Ident.String() + ": " + e.Op + ": " + e.Err.Error() }

func (e *ReleaseError) Unwrap() error { return e.Err }

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
