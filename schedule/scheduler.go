package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// RunFunc runs one job on its store. A prune is called with the store's
// exclusive lock held; a check with the lock held shared, or without it
// where it cannot be taken (Result.Notice then says so).
type RunFunc func(ctx context.Context, job Job, store *pkgstore.Store, now time.Time) RunResult

// Scheduler runs the effective jobs of a directory of definitions and of
// definitions registered in code (Register), and runs a job on demand
// (Trigger).
type Scheduler struct {
	// Dir holds the definition files (none when empty: only registered
	// definitions); StatePath the state file of every job.
	Dir, StatePath string
	// StateBesideStores keeps each job's state beside its store instead:
	// in DefaultStatePath of the job's FS root, one file per FS root
	// (StatePath unused), so that a job's history does not depend on the
	// other definitions. No directory from the FS root down to the file
	// may be a symlink: they are opened (made, when missing) one at a
	// time without following one, and the state is never written through
	// a symlinked hab, hab/sup, hab/sup/default or hab/sup/default/hab-gc
	// (an error naming it, wrapping safeio's ErrSymlink). The FS root
	// itself may be a symlink.
	StateBesideStores bool
	// Location is the time zone cron expressions are read in (default
	// UTC).
	Location *time.Location
	// Clock reads the time (default time.Now).
	Clock func() time.Time
	// LockTimeout bounds the wait for a store's lock when a job falls due
	// while another holds it; the job is then retried, never dropped. As
	// retention.ApplyOptions.LockTimeout: the zero value waits
	// retention.DefaultLockTimeout, retention.NoLockWait not at all;
	// another negative value is refused (Validate, Reload).
	LockTimeout time.Duration
	// Run runs a job (default DefaultRun).
	Run RunFunc
	// Logger receives every run and problem (default: discard).
	Logger *slog.Logger
	// NotRun, when set, is called for each due job that could not run
	// (logged at ERROR; it stays due and is retried): for metrics.
	NotRun func(j Job, why string)
	// Only, when set, restricts RunDue to the job with this key.
	Only string
	// Machine, when set, is the identity every randomized time is drawn
	// with (see HashInput.Machine), replacing the one a state recorded.
	// Unset, each FS root's jobs draw theirs with the identity the state
	// recorded for that FS root, else with MachineID(root, "") (its
	// etc/machine-id, else the host name), which is then recorded.
	Machine string
	// CatchUpSpread bounds the delay of a missed run (one whose due time
	// passed before this Scheduler started, e.g. while the machine was
	// down): it waits a stable per-machine, per-job delay in
	// [0, CatchUpSpread) after the start, so that machines booting
	// together do not all run at once. 0: missed runs run at once.
	// Negative: refused (Validate, Reload).
	CatchUpSpread time.Duration
	// NotBefore is a time the clock is never before when right (the time
	// this hab-gc was built): a clock before it (a machine booting at
	// 1970 before NTP) is obviously wrong, and no scheduled job runs or
	// is re-anchored until it is right again. Zero: no such bound (a
	// clock more than a day before the state's own oldest record is
	// still taken as wrong).
	NotBefore time.Time
	// ReadOnly makes Reload leave the state file alone (inspection:
	// schedule list, next, export): what it would record stays in memory.
	ReadOnly bool

	// Free reads the free space of a store's file system (default
	// statfs): pressure jobs run when it is below their min_free.
	Free func(store string) (pressure.Space, error)

	// Settle is the pause of every prune's Apply between hiding releases
	// and its last check for new dependents (retention.ApplyOptions.Settle):
	// 0 is retention.DefaultSettle, retention.NoSettle none; another
	// negative value is refused (Validate, Reload).
	Settle time.Duration
	// OnPhase, when set, is told of each phase of every prune and
	// pressure prune this Scheduler runs, with its job: the scan and the
	// planning (pkgstore.Options.OnPhase), then Apply's
	// (retention.ApplyOptions.OnPhase). It is called from the goroutine
	// running the job, so a slow OnPhase slows the run. Settle and OnPhase
	// reach RunJob through its context: a RunFunc that calls RunJob (or
	// DefaultRun) with the context it is given keeps them.
	OnPhase func(Job, retention.PhaseEvent)

	mu       sync.RWMutex // guards jobs, crons, pressure and view, replaced by Reload
	pressure []Job
	jobs     []Job
	crons    map[string]*Cron
	view     *State            // the state as Reload left it (in memory)
	machines map[string]string // by canonical FS root: the identity the jobs' times were drawn with
	waiting  []string          // stores whose absence rejected a definition

	umu        sync.Mutex
	unrecorded map[string]unrecorded // by job key
	started    time.Time             // the first Reload
	wrongClock string                // why the clock is taken as wrong (holdForClock); "" when right
	absent     map[string]*absence   // by job key: stores that could not be opened (storeGone)
	startWrong bool                  // started was read from a wrong clock
	catchUp    map[string]time.Time  // missed runs waiting: when they run

	smu   sync.Mutex            // guards cache, roots and lost; held through each update of the state
	cache map[string]stateCache // by path: each state file as last read or written
	roots map[string]bool       // canonical FS roots named since the start (StateBesideStores)
	lost  bool                  // a state file was set aside: jobs it held begin at their definitions (lostSince)

	wmu      sync.Mutex
	sem      chan struct{}   // one per store running jobs
	busy     map[string]bool // stores whose worker runs
	deferred map[string]bool // busy stores whose due runs wait for the worker
	kick     chan struct{}
	workers  sync.WaitGroup

	rmu        sync.Mutex
	registered map[string]Definition // by name (Register)

	fmu     sync.Mutex
	slots   map[string]chan struct{} // by job key: one run at a time
	pending map[string]*flight       // by job key: the next triggered run
}

// snapshot returns the jobs and their schedules of the last Reload.
func (s *Scheduler) snapshot() ([]Job, map[string]*Cron) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.jobs, s.crons
}

// now is the wall clock's time, without a monotonic reading: a start
// read while the clock was fast must compare as fast once it is set
// right.
func (s *Scheduler) now() time.Time {
	if s.Clock == nil {
		return time.Now().Round(0)
	}
	return s.Clock().Round(0)
}

func (s *Scheduler) log() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// ErrInvalidScheduler is wrapped by Validate's errors.
var ErrInvalidScheduler = errors.New("invalid scheduler settings")

// Validate refuses negative durations but the named "none" ones:
// LockTimeout and Settle are retention.ApplyOptions' (retention.NoLockWait
// and retention.NoSettle are none), CatchUpSpread has no "none" below
// zero (docs/library.md, "Zero and negative
// values"). Reload calls it, and reads nothing when it fails.
func (s *Scheduler) Validate() error {
	if err := (retention.ApplyOptions{LockTimeout: s.LockTimeout, Settle: s.Settle}).Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidScheduler, err)
	}
	if s.CatchUpSpread < 0 {
		return fmt.Errorf("%w: catch-up spread %s is negative (0 runs missed runs at once)", ErrInvalidScheduler, s.CatchUpSpread)
	}
	return nil
}

// Jobs returns the effective jobs of the last Reload.
func (s *Scheduler) Jobs() []Job {
	jobs, _ := s.snapshot()
	return jobs
}

// runFunc is Run, or DefaultRun when unset.
func (s *Scheduler) runFunc() RunFunc {
	if s.Run == nil {
		return DefaultRun
	}
	return s.Run
}
