package schedule

import (
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/retention"
)

// ErrRemovalsFailed is wrapped by the RunResult.Err of a prune that ran
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

// failedRun is the result of a run that failed with err.
func failedRun(err error) RunResult { return RunResult{Err: err, Error: err.Error()} }

// withErrText fills Error from Err when a RunFunc set only Err, so that
// the run counts as failed (RunOutcome.Failed) and the state records why.
func (r RunResult) withErrText() RunResult {
	if r.Err != nil && r.Error == "" {
		r.Error = r.Err.Error()
	}
	return r
}
