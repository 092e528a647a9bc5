package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// RunFunc runs one job on its store, under the store's lock (a check's
// shared, or none where it cannot be taken: Result.Notice says so).
type RunFunc func(ctx context.Context, job Job, store *pkgstore.Store, now time.Time) (RunResult, error)

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
	Run         RunFunc                // RunJob with the job's parameters
	Logger      *slog.Logger           // discard
	NotRun      func(j Job, why error) // each due job that could not run
	Only        string                 // the one job key to run (daemon --once --job)
	// Machine replaces each FS root's identity (its etc/machine-id, else
	// the host name, as the state recorded it) in randomized times.
	Machine string
	// CatchUpSpread bounds the stable per-machine delay of a run missed
	// before the Scheduler started (0: at once).
	CatchUpSpread time.Duration
	// NotBefore is a time a right clock is never before (the build time).
	NotBefore time.Time
	ReadOnly  bool                                       // never write the state (schedule list, next, export)
	Free      func(store string) (pressure.Space, error) // statfs
	// Pace and OnPhase reach every prune's Apply (retention.ApplyOptions).
	Pace    time.Duration
	OnPhase func(Job, retention.PhaseEvent)

	mu       sync.RWMutex // guards what Reload replaces
	pressure []Job
	jobs     []Job
	crons    map[string]*cronSpec
	view     *stateFile        // the state as Reload left it, and as runs since changed it
	machines map[string]string // by canonical FS root
	waiting  []string          // stores whose absence rejected a definition

	umu        sync.Mutex // what is kept by job key, and the clock
	unrecorded map[string]unrecorded
	started    time.Time // the first Reload
	wrongClock string
	absent     map[string]*absence
	startWrong bool // started was read from a wrong clock
	catchUp    map[string]time.Time

	smu   sync.Mutex            // held through each update of the state
	cache map[string]stateCache // by path
	roots map[string]bool       // canonical FS roots named since the start
	lost  bool                  // a state file was set aside (lostSince)

	wmu      sync.Mutex // the store workers
	sem      chan struct{}
	busy     map[string]bool
	deferred map[string]bool // busy stores whose due runs wait
	kick     chan struct{}
	workers  sync.WaitGroup

	rmu        sync.Mutex
	registered map[string]Definition

	fmu     sync.Mutex               // triggered runs
	slots   map[string]chan struct{} // by job key: one run at a time
	pending map[string]*flight
}

func (s *Scheduler) snapshot() ([]Job, map[string]*cronSpec) {
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

var errInvalidScheduler = errors.New("invalid scheduler settings")

// Validate refuses negative durations but the named "none" and "auto"
// values of retention. Reload calls it first.
func (s *Scheduler) Validate() error {
	if err := (retention.ApplyOptions{LockTimeout: s.LockTimeout, Pace: s.Pace}).Validate(); err != nil {
		return fmt.Errorf("%w: %w", errInvalidScheduler, err)
	}
	if s.CatchUpSpread < 0 {
		return fmt.Errorf("%w: catch-up spread %s is negative (0 runs missed runs at once)", errInvalidScheduler, s.CatchUpSpread)
	}
	return nil
}

// Jobs returns the effective jobs of the last Reload.
func (s *Scheduler) Jobs() []Job {
	jobs, _ := s.snapshot()
	return jobs
}

// NewDefinition makes a definition in code, checked as a file is. created
// may be zero: the scheduler then uses when it first saw the definition.
// Errors wrap ErrDefinition.
func NewDefinition(name, fsRoot string, created time.Time, jobs ...JobDef) (Definition, error) {
	fail := func(field, format string, args ...any) error {
		return &DefinitionError{File: fmt.Sprintf("schedule %q", name), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	d := Definition{Name: name, Created: created, Jobs: slices.Clone(jobs)}
	switch {
	case name == "":
		return Definition{}, fail("", "no name")
	case len(jobs) == 0:
		return Definition{}, fail("", "no job")
	}
	if err := d.setStore(fail, &fsRoot); err != nil {
		return Definition{}, err
	}
	for i, j := range d.Jobs {
		if j.Spec.Raw == "" {
			return Definition{}, fail("", "%s job without a schedule", j.Type)
		}
		switch j.Type {
		case Check:
			d.Jobs[i].Params = Params{}
		case Prune:
			d.Jobs[i].Params.Exclude = normaliseExcludes(j.Params.Exclude)
			if _, err := j.Params.Policy(); err != nil {
				return Definition{}, fmt.Errorf("%w: schedule %q: prune: %w", ErrDefinition, name, err)
			}
		default:
			return Definition{}, fail("", "unknown job type %q", j.Type)
		}
	}
	return d, nil
}

// Register adds definitions made by NewDefinition to those of Dir at the
// next Reload. A name registered again replaces the earlier one; a name a
// file of Dir uses is rejected.
func (s *Scheduler) Register(defs ...Definition) error {
	for _, d := range defs {
		if d.Name == "" || d.Store == "" {
			return fmt.Errorf("%w: register definitions made by NewDefinition", ErrDefinition)
		}
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.registered == nil {
		s.registered = map[string]Definition{}
	}
	for _, d := range defs {
		s.registered[d.Name] = d
	}
	return nil
}

func (s *Scheduler) definitions() ([]Definition, []error) {
	var defs []Definition
	var errs []error
	if s.Dir != "" {
		defs, errs = loadDir(s.Dir)
	}
	fromFiles := map[string]bool{}
	for _, d := range defs {
		fromFiles[d.Name] = true
	}
	s.rmu.Lock()
	var names []string
	for n := range s.registered {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if fromFiles[n] {
			errs = append(errs, fmt.Errorf("%w: schedule %q is registered in code and defined in %s: the registered one is ignored", ErrDefinition, n, s.Dir))
			continue
		}
		defs = append(defs, s.registered[n])
	}
	s.rmu.Unlock()
	return defs, errs
}

// anchor is the time after which a job's due times count.
func anchor(js *jobState) time.Time {
	a := js.Since
	if js.LastDue != nil && js.LastDue.After(a) {
		a = *js.LastDue
	}
	return a
}

// due is the latest due time after the anchor: one, however many were
// missed.
func due(c *cronSpec, js *jobState, now time.Time) (time.Time, bool) {
	return c.LastDue(anchor(js), now)
}

// nextWake returns when, after now, the earliest job falls due or a
// missed run ends its delay (zero: never).
func (s *Scheduler) nextWake(now time.Time) time.Time {
	next := s.pendingCatchUp()
	if !next.After(now) {
		next = time.Time{}
	}
	jobs, crons := s.snapshot()
	for _, j := range jobs {
		if n := crons[j.Key].Next(now); !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	return next
}
