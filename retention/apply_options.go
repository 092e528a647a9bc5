package retention

import (
	"log/slog"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// DefaultSettle is how long Apply waits, after hiding the releases it is
// about to delete, before its last check for new dependents.
const DefaultSettle = 2 * time.Second

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// LockTimeout is how long to wait for another hab-gc's lock. The
	// zero value waits DefaultLockTimeout; NoLockWait fails at once;
	// another negative value is refused (Validate).
	LockTimeout time.Duration
	// Locked says the caller already holds the store's lock, taken with
	// Lock on this same Store (as the scheduler does while it checks and
	// records its run), so Apply must not take it again. Apply checks it
	// (Store.HoldsLock): when the Store does not hold the lock, Apply
	// changes nothing and fails wrapping pkgstore.ErrNotLocked.
	Locked bool
	// Settle is the pause between hiding releases and the final check for
	// new dependents (see Apply). The zero value is DefaultSettle;
	// NoSettle is none; another negative value is refused (Validate).
	Settle time.Duration
	// Pace, when not 0, makes the deletions yield to the disk's other
	// users: they run at the lowest best-effort I/O priority (Linux) and
	// pause while the disk is slow, by the latency of their own fsyncs
	// (Result.Paced says for how long in all). PaceAuto judges "slow"
	// against the lowest latency seen; a positive duration, at most
	// MaxPace, is the latency above which they pause. The zero value
	// deletes at full speed; another negative value is refused
	// (Validate).
	Pace time.Duration
	// Progress, when set, receives an Event per release handled.
	Progress func(Event)
	// OnPhase, when set, is told when each phase of Apply starts (Done 0)
	// and, while hiding and deleting, after each release (see Phase).
	OnPhase func(PhaseEvent)
	// Logger receives the same events at DEBUG (phases as
	// pkgstore.ReportPhase logs them), failures at WARN. Default: discard.
	Logger *slog.Logger
	// Now is the clock its scans tell installs in progress by
	// (pkgstore.Options.Now). Default: time.Now.
	Now func() time.Time

	// hook, set only by tests, is called at each stage of a release.
	hook func(stage string, id pkgstore.Ident, hidden string)
	// pacer, set only by tests, replaces Pace's.
	pacer *pacer
}
