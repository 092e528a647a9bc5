package schedule

import (
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/retention"
)

// ErrRemovalsFailed is wrapped by the error of a prune that could not
// remove some of the releases it planned to, with each of their
// *retention.ReleaseError.
var ErrRemovalsFailed = errors.New("removals failed")

type removalsError struct {
	n    int
	errs []error
}

func (e *removalsError) Error() string { return fmt.Sprintf("%d removal(s) failed", e.n) }

func (e *removalsError) Unwrap() []error { return append([]error{ErrRemovalsFailed}, e.errs...) }

func partialError(ar *retention.Result) error {
	e := &removalsError{n: ar.Failed}
	for _, o := range ar.Outcomes {
		if o.Status == retention.StatusFailed && o.Err != nil {
			e.errs = append(e.errs, o.Err)
		}
	}
	return e
}
