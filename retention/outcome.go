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
	// StatusGone: the release was no longer installed when Apply reached
	// it (uninstalled by someone else since the plan; reason CodeGone).
	// Apply neither kept nor removed it.
	StatusGone RemovalStatus = "gone"
	// StatusNotAttempted: Apply stopped (its context was cancelled) before
	// it reached the release, which is untouched.
	StatusNotAttempted RemovalStatus = "not-attempted"
)

// RemovalOutcome is what Apply did with one release the plan removes.
type RemovalOutcome struct {
	Ident   pkgstore.Ident
	Status  RemovalStatus
	Reasons []Reason // why it was kept at revalidation, or is gone
	Bytes   int64    // bytes freed (removed releases)
	// Err is the outcome's one error, a *ReleaseError (what Apply was
	// doing, and the cause, for errors.Is and errors.As): why a
	// StatusFailed release failed, or, for a release kept because it
	// changed since the plan, one wrapping ErrChangedSincePlan. nil
	// otherwise. There is no separate error string: ErrorText is the text
	// reports and the history record.
	Err error `json:"-"`
}

// ErrorText is why a failed release failed, as Report and the history
// record it (ReportOutcome.Error): the text of Err without the ident,
// which the record already names. It is empty unless Status is
// StatusFailed (a release kept because it changed says so in Reasons).
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

// Event reports progress.
type Event struct {
	RemovalOutcome
	Done, Total int
}

// Result is what Apply did.
type Result struct {
	Outcomes []RemovalOutcome
	// Removed, Kept, Failed and Gone count Outcomes by status (Kept: kept
	// at revalidation; a release already gone is not kept, it is Gone);
	// Failed also counts Leftovers that could not be deleted.
	Removed, Kept, Failed, Gone int
	// NotAttempted counts releases Apply never reached (it was stopped).
	NotAttempted int
	BytesFreed   int64
	// Leftovers are what Apply did with what an interrupted run left.
	Leftovers []Leftover
	// InstallWait, when not empty, says why Apply kept what the plan
	// removes: its re-scan under the lock, or its last check, found an
	// install in progress (see Plan.InstallWait).
	InstallWait string
	// Found is what the policy's RootFinders found under the lock, their
	// probes of the releases the plan removes included (nil when Apply
	// refused before it asked them). The Report of a PlanToApply plan,
	// whose probes were Apply's, names these.
	Found []Found
	// Paced is how long the deletions were held back (ApplyOptions.Pace).
	Paced time.Duration

	refused bool // see Applied
}

// Leftover is what Apply did with a hidden directory an interrupted run
// left (pkgstore.Inventory.Debris).
type Leftover struct {
	// Path is relative to the store.
	Path string `json:"path"`
	// Status is StatusRemoved (deleted), StatusKept (put back as the
	// release it held, which something needs), StatusFailed (it could not
	// be deleted; counted in Result.Failed) or StatusNotAttempted (not a
	// directory hab-gc made: left alone).
	Status RemovalStatus `json:"status"`
	// Text says why, or what went wrong.
	Text string `json:"text"`
}

// Partial reports whether some removals failed.
func (r *Result) Partial() bool { return r.Failed > 0 }

// Applied reports whether Apply went ahead: false when it refused before
// it touched the store (a bad store, options or plan, the lock, what is
// in use unknown), every planned removal then StatusNotAttempted with
// CodeNotApplied.
func (r *Result) Applied() bool { return r != nil && !r.refused }

// Revalidation reason codes.
const (
	CodeChanged      Code = "changed-since-plan"
	CodeNewDependent Code = "new-dependent"
	CodeGone         Code = "already-gone"
)

// CodeCancelled keeps a release Apply did not delete because its context
// was cancelled.
const CodeCancelled Code = "cancelled"

// CodeNotApplied: Apply refused (the store, its lock, the options, what
// is in use could not be known...) before it removed anything.
const CodeNotApplied Code = "not-applied"
