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

// RunFunc runs one job on its store, under the store's lock (a check's
// shared, or none where it cannot be taken: Result.Notice says so).
type RunFunc func(ctx context.Context, job Job, store *pkgstore.Store, now time.Time) RunResult

// Scheduler runs the effective jobs of a directory of definitions and of
// those registered in code. The zero value of each field is its default.
type Scheduler struct {
	// Dir holds the definition files (empty: registered ones only);
	// StatePath is the state file of every job.
	Dir, StatePath string
	// StateBesideStores keeps each FS root's jobs in DefaultStatePath of
	// it instead, reached without following a symlink below the FS root.
	StateBesideStores bool
	Location          *time.Location   // cron's time zone (UTC)
	Clock             func() time.Time // time.Now
	// LockTimeout bounds the wait for a store's lock, as
	// retention.ApplyOptions'; a job not run stays due and is retried.
	LockTimeout time.Duration
	Run         RunFunc      // DefaultRun
	Logger      *slog.Logger // discard
	// NotRun is told of each due job that could not run (for metrics).
	NotRun func(j Job, why string)
	// Only restricts the runs to the job with this key (daemon --once --job).
	Only string
	// Machine replaces each FS root's identity (its etc/machine-id, else
	// the host name, as the state recorded it) in randomized times.
	Machine string
	// CatchUpSpread bounds the stable per-machine delay of a run missed
	// before the Scheduler started (0: at once).
	CatchUpSpread time.Duration
	// NotBefore is a time a right clock is never before (the build time):
	// before it no scheduled job runs.
	NotBefore time.Time
	// ReadOnly leaves the state file alone (schedule list, next, export).
	ReadOnly bool
	// Free reads a store's free space for pressure jobs (statfs).
	Free func(store string) (pressure.Space, error)
	// Settle and OnPhase reach every prune's Apply (retention.ApplyOptions)
	// through the context RunJob is given; OnPhase with the job.
	Settle  time.Duration
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

// now is the wall clock without its monotonic reading: a start read while
// the clock was fast must compare as fast once it is set right.
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

// Validate refuses negative durations but LockTimeout's and Settle's
// named "none" values. Reload calls it first.
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
