package schedule

import (
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/retention"
)

// ErrRemovalsFailed is wrapped by the error of a prune that ran
// but could not remove some of the releases it planned to
// (retention.Result.Partial). The error also wraps each of those releases'
// errors (a *retention.ReleaseError each), so errors.Is(err,
// fs.ErrPermission) and errors.As(err, &releaseErr) see them.
var ErrRemovalsFailed = errors.New("removals failed")

// removalsError is ErrRemovalsFailed with the releases' errors. Its text
// is the one the state file has always recorded.
type removalsError struct {
	n    int
	errs []error
}

func (e *removalsError) Error() string { return fmt.Sprintf("%d removal(s) failed", e.n) }

func (e *removalsError) Unwrap() []error { return append([]error{ErrRemovalsFailed}, e.errs...) }

// partialError is the error of an Apply that could not remove n releases.
func partialError(ar *retention.Result) error {
	e := &removalsError{n: ar.Failed}
	for _, o := range ar.Outcomes {
		if o.Status == retention.StatusFailed && o.Err != nil {
			e.errs = append(e.errs, o.Err)
		}
	}
	return e
}
