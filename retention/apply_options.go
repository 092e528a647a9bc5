package retention

import (
	"log/slog"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// DefaultSettle is Apply's pause between hiding and its last check.
const DefaultSettle = 2 * time.Second

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// LockTimeout: 0 waits DefaultLockTimeout, NoLockWait not at all.
	LockTimeout time.Duration
	// Locked says the caller holds the lock on this Store; Apply checks it
	// (pkgstore.ErrNotLocked).
	Locked bool
	// Settle: 0 is DefaultSettle, NoSettle none.
	Settle time.Duration
	// Pace, when not 0, deletes at the lowest I/O priority (Linux) and
	// pauses while the disk's fsync latency is high: PaceAuto judges
	// against the lowest seen, a positive value up to MaxPace is the
	// threshold (Result.Paced).
	Pace    time.Duration
	OnPhase func(PhaseEvent)
	// Logger gets phases and outcomes at DEBUG, failures at WARN.
	Logger *slog.Logger
	// Now is the clock of Apply's scans. Default: time.Now.
	Now func() time.Time

	hook     func(stage string, id pkgstore.Ident, hidden string) // tests
	progress func(o RemovalOutcome, done, total int)              // tests
	pacer    *pacer                                               // tests

}
