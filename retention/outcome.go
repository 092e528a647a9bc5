package retention

import (
	"errors"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// RemovalStatus is what became of one planned removal.
type RemovalStatus string

const (
	StatusRemoved RemovalStatus = "removed"
	StatusKept    RemovalStatus = "kept"
	StatusFailed  RemovalStatus = "failed"
	// StatusGone: no longer installed when Apply reached it (CodeGone).
	StatusGone RemovalStatus = "gone"
	// StatusNotAttempted: Apply stopped or refused before reaching it.
	StatusNotAttempted RemovalStatus = "not-attempted"
)

// RemovalOutcome is what Apply did with one release the plan removes.
type RemovalOutcome struct {
	Ident   pkgstore.Ident
	Status  RemovalStatus
	Reasons []Reason // why it was kept at revalidation, or is gone
	Bytes   int64    // bytes freed (removed releases)
	// Err is a *ReleaseError: why a StatusFailed release failed, or one
	// wrapping ErrChangedSincePlan for a release kept because it changed.
	Err error `json:"-"`
}

// ErrorText is Err's text without the ident, for a StatusFailed release
// (empty otherwise), as reports and the history record it.
func (o RemovalOutcome) ErrorText() string {
	if o.Status != StatusFailed || o.Err == nil {
		return ""
	}
	var re *ReleaseError
	if errors.As(o.Err, &re) && re.Ident == o.Ident {
		return re.Err.Error()
	}
	return o.Err.Error()
}

// Result is what Apply did.
type Result struct {
	Outcomes []RemovalOutcome
	// Counts of Outcomes by status; Failed also counts Leftovers that
	// could not be deleted.
	Removed, Kept, Failed, Gone, NotAttempted int
	BytesFreed                                int64
	Leftovers                                 []Leftover
	// InstallWait: an install in progress Apply found (Plan.InstallWait).
	InstallWait string
	// Found is what the RootFinders and their probes found under the lock.
	Found []Found
	// Paced is how long the deletions were held back (ApplyOptions.Pace).
	Paced time.Duration

	refused bool // see Applied
}

// Leftover is what Apply did with a hidden directory an interrupted run
// left (pkgstore.Inventory.Debris).
type Leftover struct {
	Path string `json:"path"` // relative to the store
	// Status: removed, kept (put back: something needs it), failed, or
	// not-attempted (not a directory hab-gc made).
	Status RemovalStatus `json:"status"`
	Text   string        `json:"text"`
}

// Partial reports whether some removals failed.
func (r *Result) Partial() bool { return r.Failed > 0 }

// Applied is false when Apply refused before it touched the store (every
// removal StatusNotAttempted, CodeNotApplied).
func (r *Result) Applied() bool { return r != nil && !r.refused }

// Revalidation reason codes.
const (
	CodeChanged      Code = "changed-since-plan"
	CodeNewDependent Code = "new-dependent"
	CodeGone         Code = "already-gone"
	CodeCancelled    Code = "cancelled"   // ctx cancelled before deletion
	CodeNotApplied   Code = "not-applied" // Apply refused before it removed anything
)
