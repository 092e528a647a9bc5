package schedule

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
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
	// definitions); StatePath the state file.
	Dir, StatePath string
	// StateRoot, when set, is the FS root StatePath lies under (the
	// daemon's default state, FS_ROOT/hab/sup/default/hab-gc): no
	// directory from StateRoot down to the state file may then be a
	// symlink. They are opened (made, when missing) one at a time without
	// following one, and the state and its lock are never written through
	// a symlinked hab, hab/sup, hab/sup/default or hab/sup/default/hab-gc
	// (an error naming it, wrapping safeio's ErrSymlink). StateRoot itself
	// may be a symlink. Without it, StatePath's directory is the caller's
	// choice, made as given.
	StateRoot string
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
	// StateLockTimeout bounds the wait for the state file's lock
	// (StatePath + ".lock"). An update holds it for milliseconds, so one
	// held longer is another process's (an operator's flock, a stuck
	// process): past the wait the update fails with ErrStateBusy and the
	// scheduler goes on with the state in memory, as on a full disk. The
	// zero value waits DefaultStateLockTimeout. There is no "do not
	// wait": a negative value is refused (Validate, Reload).
	StateLockTimeout time.Duration
	// Run runs a job (default DefaultRun).
	Run RunFunc
	// Logger receives every run and problem (default: discard).
	Logger *slog.Logger
	// NotRun, when set, is called for each due job that could not run
	// (logged at ERROR; it stays due and is retried): for metrics.
	NotRun func(j Job, why string)
	// Only, when set, restricts RunDue to the job with this key.
	Only string
	// Machine is this machine's identity, part of every randomized time
	// (see HashInput.Machine); empty: none. It is recorded in a new state
	// (State.Machine); a state that has one keeps it, unless
	// ForceMachine (the identity was given explicitly).
	Machine      string
	ForceMachine bool
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
	view     *State   // the state as Reload left it (in memory)
	machine  string   // the identity the jobs' times were drawn with
	waiting  []string // stores whose absence rejected a definition

	umu        sync.Mutex
	unrecorded map[string]unrecorded // by job key
	started    time.Time             // the first Reload
	wrongClock string                // why the clock is taken as wrong (holdForClock); "" when right
	absent     map[string]*absence   // by job key: stores that could not be opened (storeGone)
	startWrong bool                  // started was read from a wrong clock
	catchUp    map[string]time.Time  // missed runs waiting: when they run
	stateSeen  stateMark             // the state's files as this scheduler last wrote or read them

	smu  sync.Mutex // guards disk; held through each update of the state
	disk *diskState // the state as its files hold it, when last read or written (nil: read them)

	cmu   sync.Mutex
	wake  map[string]time.Time  // by job key: its next due time (NextWake)
	after map[string]cachedNext // by job key: its next due time after its anchor (RunDue)

	committer committer // batches the runs' writes of the state

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

// setBack is how far a job's last due time may lie ahead of the clock
// and be a clock set back a little (an NTP step, a VM restored): the due
// times up to it ran, and are not run again; the job waits for the clock.
// Further ahead, it ran while the clock was wrong, and is re-anchored at
// now (recoverClock).
const setBack = 24 * time.Hour

// missedGrace is how late a due time may be seen, after the Scheduler
// started, and still count as on time (a timer's accuracy, a slow start).
const missedGrace = 2 * time.Minute

// catchUpDelay is a job's stable per-machine delay in [0, bound), to the
// second.
func catchUpDelay(machine, key string, bound time.Duration) time.Duration {
	if bound < time.Second {
		return 0
	}
	d := sha256.Sum256([]byte("hab-gc catch-up v1\x00" + machine + "\x00" + key))
	return time.Duration(binary.BigEndian.Uint64(d[:8])%uint64(bound/time.Second)) * time.Second
}

// holdCatchUp reports whether a run due at due waits (it was missed
// before the Scheduler started and its delay has not passed), and
// remembers when it runs, for NextWake.
func (s *Scheduler) holdCatchUp(j Job, js *JobState, due, now time.Time) bool {
	if j.Key == s.Only && js.LastDue == nil && js.Runs == 0 {
		// The first firing of an exported timer (see since): the timer
		// chose when, and a new job was not missed while hab-gc was
		// down. Waiting here would hold the timer's oneshot service
		// for up to CatchUpSpread.
		return false
	}
	s.umu.Lock()
	defer s.umu.Unlock()
	if s.CatchUpSpread <= 0 || s.started.IsZero() || !due.Before(s.started.Add(-missedGrace)) {
		delete(s.catchUp, j.Key)
		return false
	}
	s.mu.RLock()
	machine := s.machine
	s.mu.RUnlock()
	at := s.started.Add(catchUpDelay(machine, j.Key, s.CatchUpSpread))
	if c := js.CatchUp; c != nil && c.Due.Equal(due) && c.At.Before(at) && !c.At.Before(due) {
		at = c.At // set by an earlier start: a restart does not put it off
	} else if !s.ReadOnly && now.Before(at) {
		cu := &CatchUp{Due: due, At: at}
		js.CatchUp = cu
		s.remember(j.Key, *js)
		s.umu.Unlock()
		err := s.commit([]string{j.Key}, func(st *State) bool {
			if p := st.Jobs[j.Key]; p != nil {
				p.CatchUp = cu
				return true
			}
			return false
		})
		s.umu.Lock()
		if err != nil {
			s.log().Error("recording when a missed run catches up", "job", j.Key, "error", err)
		}
	}
	if !now.Before(at) {
		delete(s.catchUp, j.Key)
		return false
	}
	if s.catchUp == nil {
		s.catchUp = map[string]time.Time{}
	}
	if _, known := s.catchUp[j.Key]; !known {
		s.log().Info("missed run waits its catch-up delay", "job", j.Key, "due", due.UTC().Format(time.RFC3339), "runs_at", at.UTC().Format(time.RFC3339))
	}
	s.catchUp[j.Key] = at
	return true
}

// PendingCatchUp returns when the earliest missed run that waits its
// catch-up delay runs (zero when none waits).
func (s *Scheduler) PendingCatchUp() time.Time {
	s.umu.Lock()
	defer s.umu.Unlock()
	var first time.Time
	for _, at := range s.catchUp {
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	return first
}

// unrecorded is a run this process made whose record could not be
// written: the same due time is not run again while the process lives.
type unrecorded struct {
	due time.Time
	err string
}

// snapshot returns the jobs and their schedules of the last Reload.
func (s *Scheduler) snapshot() ([]Job, map[string]*Cron) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.jobs, s.crons
}

func (s *Scheduler) lastUnrecorded(key string) (unrecorded, bool) {
	s.umu.Lock()
	defer s.umu.Unlock()
	u, ok := s.unrecorded[key]
	return u, ok
}

func (s *Scheduler) now() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock()
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
// and retention.NoSettle are none), StateLockTimeout and CatchUpSpread
// have no "none" below zero (docs/library.md, "Zero and negative
// values"). Reload calls it, and reads nothing when it fails.
func (s *Scheduler) Validate() error {
	if err := (retention.ApplyOptions{LockTimeout: s.LockTimeout, Settle: s.Settle}).Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidScheduler, err)
	}
	if s.StateLockTimeout < 0 {
		return fmt.Errorf("%w: state lock timeout %s is negative (0 waits DefaultStateLockTimeout)", ErrInvalidScheduler, s.StateLockTimeout)
	}
	if s.CatchUpSpread < 0 {
		return fmt.Errorf("%w: catch-up spread %s is negative (0 runs missed runs at once)", ErrInvalidScheduler, s.CatchUpSpread)
	}
	return nil
}

// memJob returns the job's state as this scheduler last knew it (its
// Reload, its own runs), whatever the state file holds now.
func (s *Scheduler) memJob(key string) (JobState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.view == nil || s.view.Jobs[key] == nil {
		return JobState{}, false
	}
	return *s.view.Jobs[key], true
}

// remember records a job's state as this scheduler wrote or read it.
func (s *Scheduler) remember(key string, js JobState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.view != nil {
		s.view.Jobs[key] = &js
	}
}

// restore puts back into the state file the jobs (and their schedules)
// it no longer holds although this scheduler runs them: the file was
// deleted or replaced, or another hab-gc rewrote it. Their state is as
// this scheduler last knew it, so no due time runs twice and none is
// lost.
func (s *Scheduler) restore(st *State, jobs []Job) {
	var keys []string
	s.mu.RLock()
	view := s.view
	for _, j := range jobs {
		if st.Jobs[j.Key] == nil && view != nil && view.Jobs[j.Key] != nil {
			js := *view.Jobs[j.Key]
			st.Jobs[j.Key] = &js
			keys = append(keys, j.Key)
		}
	}
	s.mu.RUnlock()
	if len(keys) == 0 {
		return
	}
	s.log().Warn("jobs missing from the state file (deleted, or rewritten by another hab-gc) are restored from this daemon's memory", "state", s.StatePath, "jobs", keys)
	if s.ReadOnly {
		return
	}
	err := s.updateState(func(disk *State) bool {
		s.mu.RLock()
		defer s.mu.RUnlock()
		changed := false
		for _, k := range keys {
			if disk.Jobs[k] != nil {
				continue
			}
			js := *st.Jobs[k]
			disk.Jobs[k] = &js
			changed = true
			for _, m := range js.Members {
				if _, ok := disk.Schedules[m]; !ok && view != nil {
					if ss, ok := view.Schedules[m]; ok {
						disk.Schedules[m] = ss
					}
				}
			}
		}
		return changed
	})
	if err != nil {
		s.log().Error("restoring jobs to the state file", "error", err)
	}
}

// Jobs returns the effective jobs of the last Reload.
func (s *Scheduler) Jobs() []Job {
	jobs, _ := s.snapshot()
	return jobs
}

// JobStatus is a job with its persisted state and next due time.
type JobStatus struct {
	Job
	State JobState
	Next  time.Time
	// InState reports whether the state file holds the job. When it does
	// not (the file was deleted or replaced, or no daemon has loaded the
	// job's definition yet), State is what this Scheduler's Reload made
	// of it in memory, and Next holds only if a daemon knows the job: a
	// running daemon that loaded it restores it from its memory when it
	// falls due (RunDue), and an exported timer's first firing runs it;
	// otherwise it starts when a daemon next starts or reloads, at its
	// first due time after that.
	InState bool
}

// Status returns every job's state as persisted (or, for a job the state
// file does not hold, as Reload left it in memory: InState is false),
// and when it runs next. A run this process could not record shows in
// LastError.
func (s *Scheduler) Status() ([]JobStatus, error) {
	st, err := LoadState(s.StatePath)
	if errors.Is(err, ErrCorruptState) {
		st, err = newState(), nil // what Reload made of it (logged there)
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	jobs, crons := s.snapshot()
	s.mu.RLock()
	view := s.view
	s.mu.RUnlock()
	var out []JobStatus
	for _, j := range jobs {
		js, in := JobState{}, false
		if p := st.Jobs[j.Key]; p != nil {
			js, in = *p, true
		} else if view != nil && view.Jobs[j.Key] != nil {
			js = *view.Jobs[j.Key]
		}
		c := crons[j.Key]
		next := c.Next(now)
		if u, ok := s.lastUnrecorded(j.Key); ok {
			js.LastError = fmt.Sprintf("the run for %s was done but not recorded: %s", u.due.UTC().Format(time.RFC3339), u.err)
			if js.LastDue == nil || js.LastDue.Before(u.due) {
				d := u.due
				js.LastDue = &d
			}
		}
		if d, ok := due(c, &js, now); ok {
			next = d // overdue: runs at the next tick
		}
		out = append(out, JobStatus{Job: j, State: js, Next: next, InState: in})
	}
	return out, nil
}

// anchor is the time after which a job's due times count: its creation or
// its last run's due time, whichever is later.
func anchor(js *JobState) time.Time {
	a := js.Since
	if js.LastDue != nil && js.LastDue.After(a) {
		a = *js.LastDue
	}
	return a
}

// due returns the due time a job should run for now: the latest due time
// after both its creation and its last run. One, however many were missed.
// When that anchor is in the future (the clock was set back after a run
// at a wrong time), nothing is due; RunDue then re-anchors the job at now.
func due(c *Cron, js *JobState, now time.Time) (time.Time, bool) {
	return c.LastDue(anchor(js), now)
}

// RunOutcome reports one job the scheduler considered in RunDue.
type RunOutcome struct {
	Job     Job
	Due     time.Time
	Ran     bool
	Result  RunResult
	Skipped string // why it did not run although due
	// Triggered is set for a run Trigger made.
	Triggered bool
}

// SkippedAlreadyRan is RunOutcome.Skipped of a job whose due time another
// run (another scheduler's) recorded meanwhile: nothing to do.
const SkippedAlreadyRan = "already ran for this due time"

// skippedRunning starts RunOutcome.Skipped of a check whose due time another
// scheduler has claimed and is running.
const skippedRunning = "already running for this due time"

// Failed reports whether the job did not do what it was due to do: it
// stayed due (lock timeout, unusable store), or it ran and failed. A due
// time another scheduler ran or is running, and a pressure job with
// enough free space, are not failures.
func (o RunOutcome) Failed() bool {
	if o.Ran {
		return o.Result.Error != ""
	}
	return o.Skipped != "" && o.Skipped != SkippedAlreadyRan && o.Skipped != SkippedEnoughFree && !strings.HasPrefix(o.Skipped, skippedRunning)
}

// RunDue runs every job that is due now, one at a time, each under its
// store's lock: the state is read again under the lock, so a due time
// that another scheduler already ran is not run twice.
func (s *Scheduler) RunDue(ctx context.Context) []RunOutcome {
	return s.runDue(ctx, true)
}

// runDue finds the due jobs and runs them, each store's in a worker of
// its own (at most storeWorkers stores at once): a long prune of one
// store never delays another store's jobs. With wait, it returns once
// every run is done, with their outcomes; without (Loop), a store whose
// worker is still busy keeps its due jobs for a later tick.
func (s *Scheduler) runDue(ctx context.Context, wait bool) []RunOutcome {
	var outs []RunOutcome
	jobs, crons := s.snapshot()
	if s.Only != "" {
		// Not a copy of the fleet's jobs at every tick: 10,000 Jobs
		// copied and grown were half a tick's CPU (issue 32 item 8).
		jobs = slices.DeleteFunc(slices.Clone(jobs), func(j Job) bool { return j.Key != s.Only })
	}
	// What this scheduler knows (its Reload, its runs, what it read)
	// says which jobs may be due; the state file is read only when one
	// may be (once a tick), and each run reads it again under the
	// store's lock before it starts. An idle tick reads nothing.
	now := s.now()
	var maybe []Job
	for _, j := range jobs {
		m, ok := s.memJob(j.Key)
		if a := anchor(&m); !ok || a.After(now.Add(setBack)) || !a.After(now) && !now.Before(s.nextDue(j.Key, crons[j.Key], a)) {
			maybe = append(maybe, j)
		}
	}
	byStore := map[string][]pendingRun{}
	var stores []string
	// An idle tick reads nothing, unless the state file is not as this
	// scheduler left it (deleted, replaced, damaged): it is then read, and
	// rebuilt from memory, at once, rather than at the next due time,
	// which a restart meanwhile would never reach.
	if len(maybe) == 0 && !s.stateChanged() {
		return s.dispatch(ctx, byStore, s.addPressure(byStore, stores), wait)
	}
	known := jobs
	jobs = maybe
	st, err := s.readState() // read only when the files changed
	if errors.Is(err, ErrCorruptState) {
		// Damaged: every job is restored from memory (restore keeps the
		// file aside under the state's lock and writes the state again).
		st, err = newState(), nil
	}
	if err != nil {
		s.log().Error("reading state", "error", err)
		return s.dispatch(ctx, byStore, s.addPressure(byStore, stores), wait)
	}
	// Every job this scheduler knows is restored, not only those that
	// may be due now: a job left out of a rebuilt file would start anew
	// at the next start, and lose the due time it missed meanwhile.
	s.restore(st, known)
	if s.holdForClock(st, now) {
		return s.dispatch(ctx, byStore, s.addPressure(byStore, stores), wait)
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		js := st.Jobs[j.Key]
		if js != nil {
			c := *js // readState's JobStates are shared: holdCatchUp sets CatchUp
			js = &c
		}
		if m, ok := s.memJob(j.Key); ok && m.LastDue != nil && (js == nil || js.LastDue == nil || js.LastDue.Before(*m.LastDue)) {
			js = &m // a run this scheduler made that the file does not show (not writable)
		} else if ok && js != nil && js.LastDue != nil && (m.LastDue == nil || m.LastDue.Before(*js.LastDue)) {
			s.remember(j.Key, *js) // another scheduler's run
		}
		if js == nil {
			s.log().Error("job not run: the state file does not hold it and this daemon has no record of it; it is added at the next reload", "job", j.Key)
			continue
		}
		now := s.now()
		if js.LastDue == nil && !s.NotBefore.IsZero() && js.Since.Before(s.NotBefore) {
			s.restamp(j, now)
			continue
		}
		if a := anchor(js); a.After(now.Add(setBack)) {
			s.recoverClock(j, a, now)
			continue
		} else if a.After(now) {
			continue // the clock was set back a little: those due times ran
		}
		d, ok := due(crons[j.Key], js, now)
		if !ok {
			continue
		}
		if u, ok := s.lastUnrecorded(j.Key); ok && !u.due.Before(d) {
			continue // ran already in this process; its record failed
		}
		if s.holdCatchUp(j, js, d, now) {
			continue
		}
		if s.backingOff(j, now) {
			continue
		}
		if byStore[j.Store] == nil {
			stores = append(stores, j.Store)
		}
		byStore[j.Store] = append(byStore[j.Store], pendingRun{j: j, due: d})
	}
	if len(stores) > 0 {
		outs = append(outs, s.claimAll(byStore)...)
	}
	// Each store's pressure job runs in its worker too, after the store's
	// scheduled runs (a prune may have freed enough).
	stores = s.addPressure(byStore, stores)
	return append(outs, s.dispatch(ctx, byStore, stores, wait)...)
}

// storeWorkers bounds how many stores run jobs at once.
const storeWorkers = 8

// pendingRun is a due run of a scheduled job, or a store's pressure job
// (pressure), which runs only if the store's free space is below its
// min_free when the worker comes to it (checked: the tick found it so).
type pendingRun struct {
	j                 Job
	due               time.Time
	pressure, checked bool
}

// addPressure adds to each store's runs its pressure job, unless the
// store's worker is busy (a scheduled prune, or a pressure prune still
// under way: the next tick looks again). A store with no scheduled run
// this tick gets a worker only when it is below min_free now; after
// scheduled runs, the worker reads the free space again. It returns
// stores with the stores added.
func (s *Scheduler) addPressure(byStore map[string][]pendingRun, stores []string) []string {
	for _, j := range s.PressureJobs() {
		if s.Only != "" && j.Key != s.Only {
			continue
		}
		if s.storeBusy(j.Store) {
			continue
		}
		r := pendingRun{j: j, pressure: true}
		if !slices.Contains(stores, j.Store) {
			under, err := s.underPressure(j)
			if err != nil {
				s.log().Error("reading free space", "job", j.Key, "store", j.Store, "error", err)
				continue
			} else if !under {
				continue
			}
			r.checked = true
			stores = append(stores, j.Store)
		}
		byStore[j.Store] = append(byStore[j.Store], r)
	}
	return stores
}

// dispatch runs each store's due jobs, in order, in a worker of the
// store's own; a store whose worker is busy (a run of an earlier tick) is
// left for later: the worker wakes Loop when it is done. One store's runs
// (scheduled and pressure) never overlap; other stores' are not delayed.
func (s *Scheduler) dispatch(ctx context.Context, byStore map[string][]pendingRun, stores []string, wait bool) []RunOutcome {
	var mu sync.Mutex
	var outs []RunOutcome
	var wg sync.WaitGroup
	s.wmu.Lock()
	if s.sem == nil {
		s.sem = make(chan struct{}, storeWorkers)
	}
	if s.busy == nil {
		s.busy = map[string]bool{}
	}
	sem := s.sem
	if s.deferred == nil {
		s.deferred = map[string]bool{}
	}
	var started []string
	for _, st := range stores {
		if !s.busy[st] {
			s.busy[st] = true
			started = append(started, st)
		} else if slices.ContainsFunc(byStore[st], func(r pendingRun) bool { return !r.pressure }) {
			s.deferred[st] = true
		}
	}
	s.wmu.Unlock()
	for _, st := range started {
		wg.Add(1)
		s.workers.Add(1)
		go func(store string, runs []pendingRun) {
			defer s.workers.Done()
			defer wg.Done()
			defer func() {
				s.wmu.Lock()
				delete(s.busy, store)
				// The loop looks again when this store may have more
				// due: scheduled runs ran or were left for later. Not
				// after a pressure prune alone: one that could not free
				// enough is tried again at the next tick, not at once.
				again := s.deferred[store] || slices.ContainsFunc(runs, func(r pendingRun) bool { return !r.pressure })
				delete(s.deferred, store)
				s.wmu.Unlock()
				if again {
					select {
					case s.kicked() <- struct{}{}:
					default:
					}
				}
			}()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			for _, r := range runs {
				slot := s.slot(r.j.Key)
				select {
				case slot <- struct{}{}: // no triggered run of this job under way
				case <-ctx.Done():
					return
				}
				var o RunOutcome
				if r.pressure {
					if !r.checked {
						if under, err := s.underPressure(r.j); err != nil {
							s.log().Error("reading free space", "job", r.j.Key, "store", r.j.Store, "error", err)
							<-slot
							continue
						} else if !under {
							<-slot
							continue
						}
					}
					o = s.runPressure(ctx, r.j)
				} else {
					o = s.runOne(ctx, r.j, r.due)
				}
				<-slot
				mu.Lock()
				outs = append(outs, o)
				mu.Unlock()
			}
		}(st, byStore[st])
	}
	if !wait {
		return nil
	}
	wg.Wait()
	// Pressure prunes after the scheduled runs, as each store ran them.
	slices.SortStableFunc(outs, func(a, b RunOutcome) int {
		if pa, pb := a.Job.Type == Pressure, b.Job.Type == Pressure; pa != pb {
			if pa {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Job.Key, b.Job.Key)
	})
	return outs
}

// storeBusy reports whether a worker runs jobs of the store now.
func (s *Scheduler) storeBusy(store string) bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.busy[store]
}

// kicked is the channel a finished worker wakes Loop with.
func (s *Scheduler) kicked() chan struct{} {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.kick == nil {
		s.kick = make(chan struct{}, 1)
	}
	return s.kick
}

// runFunc is Run, or DefaultRun when unset.
func (s *Scheduler) runFunc() RunFunc {
	if s.Run == nil {
		return DefaultRun
	}
	return s.Run
}

// SkippedEnoughFree is RunOutcome.Skipped of a pressure job that found, under
// the store's lock, that free space is no longer below min_free (a prune
// that ran meanwhile freed it): nothing to do, not a failure.
const SkippedEnoughFree = "enough free space now"

// PressureJobs returns the pressure jobs of the last Reload, one per
// store.
func (s *Scheduler) PressureJobs() []Job {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pressure
}

// RunPressure runs each pressure job whose store's file system has less
// free space than its min_free, and waits for them. Each runs in its
// store's worker (as RunDue's runs: other stores are not delayed), under
// the store's exclusive lock (so never beside a scheduled prune of the
// store, nor twice at once), after reading the free space again under
// the lock: a prune that has just freed enough leaves nothing to do. A
// store whose worker is busy is skipped (looked at again after it).
// RunDue and the daemon's loop check the pressure jobs at every tick,
// each after its store's scheduled runs; the loop wakes at least every
// minute.
func (s *Scheduler) RunPressure(ctx context.Context) []RunOutcome {
	byStore := map[string][]pendingRun{}
	return s.dispatch(ctx, byStore, s.addPressure(byStore, nil), true)
}

func (s *Scheduler) underPressure(j Job) (bool, error) {
	free := s.Free
	if free == nil {
		free = func(store string) (pressure.Space, error) { return pressure.Statfs(store)() }
	}
	sp, err := free(j.Store)
	if err != nil {
		return false, err
	}
	minFree, _, err := j.Limits.Resolve(sp.Total)
	return sp.Avail < minFree, err
}

func (s *Scheduler) runPressure(ctx context.Context, j Job) RunOutcome {
	out := RunOutcome{Job: j, Due: s.now()}
	log := s.log().With("job", j.Key, "type", string(j.Type), "store", j.Store, "owner", j.Owner)
	store, err := pkgstore.Open(j.FSRoot)
	if err != nil {
		out.Skipped = err.Error()
		log.Error("pressure prune not run; retried at the next check", "error", err)
		if s.NotRun != nil {
			s.NotRun(j, out.Skipped)
		}
		return out
	}
	defer store.Close()
	unlock, err := store.Lock(ctx, retention.LockWait(s.LockTimeout))
	if err != nil {
		out.Skipped = err.Error()
		log.Error("pressure prune not run; retried at the next check", "error", err)
		if s.NotRun != nil {
			s.NotRun(j, out.Skipped)
		}
		return out
	}
	defer unlock()
	if under, err := s.underPressure(j); err != nil || !under {
		out.Skipped = SkippedEnoughFree
		log.Info("pressure prune skipped", "reason", out.Skipped)
		return out
	}
	start := s.now()
	res := s.runFunc()(s.withApply(ctx, j), j, store, start).withErrText()
	out.Ran, out.Result = true, res
	attrs := []any{"ok", res.OK, "removed", res.Removed, "bytes_freed", res.BytesFreed, "free_before", res.FreeBefore, "free_after", res.FreeAfter, "seconds", s.now().Sub(start).Seconds()}
	if res.Error != "" {
		log.Error("pressure prune failed", append(attrs, "error", res.Error)...)
	} else {
		log.Info("pressure prune ran", attrs...)
	}
	return out
}

// recoverClock handles a job whose last due time (or creation) lies after
// now: the clock was wrong (ahead) when it was recorded, and has been set
// back. The job is re-anchored at now, so the next due time after now runs
// (the recorded last run is kept).
func (s *Scheduler) recoverClock(j Job, a, now time.Time) {
	s.log().Warn("the job's last due time is in the future: the clock was set back; it runs again at its next due time after now",
		"job", j.Key, "last_due", a.UTC().Format(time.RFC3339), "now", now.UTC().Format(time.RFC3339))
	if m, ok := s.memJob(j.Key); ok && anchor(&m).After(now) {
		m.Since, m.LastDue = now, nil
		s.remember(j.Key, m)
	}
	if s.ReadOnly {
		return
	}
	err := s.updateJobs([]string{j.Key}, func(st *State) bool {
		js := st.Jobs[j.Key]
		if js == nil || !anchor(js).After(now) {
			return false
		}
		js.Since, js.LastDue = now, nil
		return true
	})
	if err != nil {
		s.log().Error("recording the clock recovery", "job", j.Key, "error", err)
	}
}

// restamp begins anew, at now, a job that has never run and was first
// seen while the clock was obviously wrong with nothing in the state to
// stamp it with (a damaged state at a boot at 1970): its 1970 creation
// time would make the latest due time since then due, although it may
// have run before the state was lost. As with a damaged state at any
// start, the next due time after now runs; none runs at once.
func (s *Scheduler) restamp(j Job, now time.Time) {
	s.log().Warn("the job was first seen while the clock was obviously wrong; it begins now that the clock is right: its next due time runs", "job", j.Key, "now", now.UTC().Format(time.RFC3339))
	if m, ok := s.memJob(j.Key); ok && m.LastDue == nil {
		m.Since = now
		s.remember(j.Key, m)
	}
	if s.ReadOnly {
		return
	}
	err := s.updateJobs([]string{j.Key}, func(st *State) bool {
		js := st.Jobs[j.Key]
		if js == nil || js.LastDue != nil || !js.Since.Before(s.NotBefore) {
			return false
		}
		js.Since = now
		return true
	})
	if err != nil {
		s.log().Error("recording when the job begins", "job", j.Key, "error", err)
	}
}

// Setup returns the retention policy and scan options a job uses on one
// FS root. The CLI builds them exactly as `hab-gc run --fs-root ROOT` with
// the job's parameters would; DefaultSetup uses the job's parameters and
// the default scan options. For a check job the policy is not used.
type Setup func(fsRoot string, j Job) (retention.Policy, pkgstore.Options, error)

// DefaultSetup is the job's policy (Params.Policy), with runtime roots
// (runroots.Finder: every release a running process uses is kept), and
// default scan options.
func DefaultSetup(fsRoot string, j Job) (retention.Policy, pkgstore.Options, error) {
	if j.Type != Prune && j.Type != Pressure {
		return retention.Policy{}, pkgstore.Options{}, nil
	}
	pol, err := j.Params.Policy()
	for i := range pol.Excludes {
		pol.Excludes[i].Source = j.PinSource()
	}
	pol.RootFinders = append(pol.RootFinders, runroots.Finder{})
	return pol, pkgstore.Options{}, err
}

// DefaultRun is RunJob with DefaultSetup.
func DefaultRun(ctx context.Context, j Job, store *pkgstore.Store, now time.Time) RunResult {
	return RunJob(ctx, j, store, now, DefaultSetup)
}

// RunJob runs a check (the store's verification) or a prune (plan and
// apply) while the caller holds the store's lock. now is the scheduler's
// clock reading: the plan judges ages and installs in progress by it, and
// the history records it; a release young by the real clock is kept all
// the same (retention.Plan.RealNow), and a clock far ahead is warned
// about in the plan (retention.WarnClockAhead). Apply's last check judges installs in progress
// by the real clock (ApplyOptions.Now's default) on purpose: installs
// happen in real time, and a scheduler's clock set ahead (a rehearsal,
// `daemon --now`) would make a fresh install look old, where the real
// clock sees it. Called by the
// Scheduler, it logs through the Scheduler's Logger (Apply's events
// included), and a prune's Apply settles for Scheduler.Settle and reports
// its phases to Scheduler.OnPhase (a setup's scan options.OnPhase, when
// set, sees the scan and planning instead). A failed run's Err is its
// error (Error its text). A prune removes a
// release only when the plan of every FS root in j.FSRoots removes it:
// several FS roots may share one store (a symlinked hab/pkgs), each with
// its own specs, binlinks and config, and the prune keeps everything any
// of them protects. When the plan of another FS root cannot be made, the
// prune removes nothing.
func RunJob(ctx context.Context, j Job, store *pkgstore.Store, now time.Time, setup Setup) RunResult {
	pol, opts, err := setup(store.FSRoot(), j)
	if err != nil {
		return failedRun(err)
	}
	opts.Now = now
	switch j.Type {
	case Check:
		rep, err := store.Verify(ctx, opts)
		if err != nil {
			return failedRun(err)
		}
		return RunResult{OK: rep.OK(), Problems: len(rep.Problems), ProblemList: rep.Problems}
	case Prune, Pressure:
		// Every prune that gets this far is recorded in the store's
		// history (package history), a refused one too.
		run := history.Run{ID: fmt.Sprintf("%s-%s", j.Key, now.UTC().Format("20060102T150405Z")), Job: string(j.Type),
			JobKey: j.Key, Owner: j.Owner, FSRoot: store.FSRoot(), Policy: pol}
		record := func(res RunResult, plan *retention.Plan, ar *retention.Result, err error) RunResult {
			if herr := history.LogContext(ctx, now, run, plan, ar, err); herr != nil {
				res.HistoryError = herr.Error()
			}
			return res
		}
		self, _ := canonicalPath(store.FSRoot())
		for _, root := range j.FSRoots {
			if c, _ := canonicalPath(root); c == self {
				continue
			}
			pins, err := keptAt(ctx, root, j, now, setup)
			if err != nil {
				err = fmt.Errorf("FS root %s shares the store, and its plan could not be made, so nothing is removed: %w", root, err)
				return record(failedRun(err), nil, nil, err)
			}
			pol.Excludes = append(pol.Excludes, pins...)
		}
		if opts.Logger == nil {
			opts.Logger = loggerFrom(ctx) // the scan and planning phases, as Apply's
		}
		applyEnv := applyFrom(ctx)
		if opts.OnPhase == nil {
			opts.OnPhase = applyEnv.onPhase
		}
		plan, err := retention.PlanStore(ctx, store, pol, now, opts)
		if err != nil {
			res := failedRun(err)
			var de *retention.DamagedError
			if errors.As(err, &de) {
				res.Problems, res.ProblemList = len(de.Problems), de.Problems
			}
			return record(res, nil, nil, err)
		}
		res := RunResult{}
		var free pressure.FreeFunc
		if j.Type == Pressure {
			free = pressure.Statfs(filepath.Join(store.FSRoot(), pkgstore.StoreDir))
			sp, err := free()
			if err == nil {
				var v pressure.Verdict
				if v, err = pressure.Limit(plan, sp, *j.Limits); err == nil {
					res.FreeBefore, res.Notice = sp.Avail, v.Text(*j.Limits)
				}
			}
			if err != nil {
				return record(failedRun(err), plan, nil, err)
			}
		}
		ar, err := plan.Apply(ctx, store, retention.ApplyOptions{Locked: true, Logger: loggerFrom(ctx), Settle: applyEnv.settle, OnPhase: applyEnv.onPhase})
		if !ar.Applied() {
			ar = nil // refused: nothing of it to report
		}
		if free != nil {
			if sp, ferr := free(); ferr == nil {
				res.FreeAfter = sp.Avail
			}
		}
		res = record(res, plan, ar, err)
		rep := plan.Report(ar)
		res.Plan, res.ProblemList = &rep, rep.Problems
		if ar != nil {
			res.Removed, res.BytesFreed = ar.Removed, ar.BytesFreed
			res.OK = !ar.Partial()
			if ar.Partial() {
				res.Err = partialError(ar)
				res.Error = res.Err.Error()
			}
		}
		if err != nil {
			res.OK, res.Err, res.Error = false, err, err.Error()
		}
		return res
	}
	return failedRun(errors.New("unknown job type " + string(j.Type)))
}

// keptAt plans the job at another FS root sharing the store and returns
// an exclude pinning each release that plan keeps.
func keptAt(ctx context.Context, root string, j Job, now time.Time, setup Setup) ([]retention.Exclude, error) {
	pol, opts, err := setup(root, j)
	if err != nil {
		return nil, err
	}
	opts.Now = now
	st, err := pkgstore.Open(root)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	plan, err := retention.PlanStore(ctx, st, pol, now, opts)
	if err != nil {
		return nil, err
	}
	var pins []retention.Exclude
	for _, d := range plan.Keeps() {
		pins = append(pins, retention.Exclude{Pattern: d.Release.Ident,
			Raw:    fmt.Sprintf("%s, kept by the plan for FS root %s, which shares this store", d.Release.Ident, root),
			Source: "the plan for FS root " + root})
	}
	return pins, nil
}

// NextWake returns when the earliest job falls due after now (zero when
// there are no jobs).
func (s *Scheduler) NextWake(now time.Time) time.Time {
	next := s.PendingCatchUp()
	if next.IsZero() || !next.After(now) {
		next = time.Time{}
	}
	jobs, crons := s.snapshot()
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if s.wake == nil {
		s.wake = map[string]time.Time{}
	}
	for _, j := range jobs {
		n, ok := s.wake[j.Key]
		if !ok || !n.After(now) || n.Sub(now) > 400*24*time.Hour { // a cached next beyond a year: the clock went back
			n = crons[j.Key].Next(now)
			s.wake[j.Key] = n
		}
		if !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	return next
}

// nextDue is the first due time of a job's schedule after anchor,
// remembered for the anchor (a tick needs it for every job).
func (s *Scheduler) nextDue(key string, c *Cron, anchor time.Time) time.Time {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if n, ok := s.after[key]; ok && n.anchor.Equal(anchor) && n.cron == c {
		return n.next
	}
	if s.after == nil {
		s.after = map[string]cachedNext{}
	}
	n := cachedNext{anchor: anchor, cron: c, next: c.Next(anchor)}
	if n.next.IsZero() {
		n.next = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC) // never
	}
	s.after[key] = n
	return n.next
}

// cachedNext is a job's first due time after an anchor, for one Cron.
type cachedNext struct {
	anchor time.Time
	cron   *Cron
	next   time.Time
}

// Loop runs due jobs until ctx ends, sleeping until the next due time (at
// most maxSleep) and reloading the definitions whenever reload fires. A
// job running when ctx ends stops safely (see retention.Apply).
func (s *Scheduler) Loop(ctx context.Context, reload <-chan struct{}, maxSleep time.Duration) error {
	defer s.workers.Wait() // a run under way stops safely first
	kick := s.kicked()
	for {
		s.runDue(ctx, false)
		now := s.now()
		wait := maxSleep
		if n := s.NextWake(now); !n.IsZero() && n.Sub(now) < wait {
			wait = max(n.Sub(now), time.Second)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-reload:
			t.Stop()
			if _, err := s.Reload(); err != nil {
				s.log().Error("reloading schedule definitions", "error", err)
			} else {
				s.log().Info("reloaded schedule definitions", "jobs", len(s.Jobs()))
			}
		case <-kick:
			t.Stop()
		case <-t.C:
		}
	}
}

type loggerKey struct{}

// withLogger carries the scheduler's logger to RunJob through a RunFunc,
// whose signature predates it.
func withLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, log)
}

func loggerFrom(ctx context.Context) *slog.Logger {
	log, _ := ctx.Value(loggerKey{}).(*slog.Logger)
	return log // nil: Apply discards
}

// clockWrong says why now is obviously wrong ("" when it is not): before
// NotBefore (the build time), or more than a day (setBack) before the
// oldest record of the state, unless this Scheduler saw the clock go back
// since it started (the records ahead are then its own, made while the
// clock was fast: recoverClock re-anchors them).
func (s *Scheduler) clockWrong(st *State, now time.Time) string {
	if !s.NotBefore.IsZero() && now.Before(s.NotBefore) {
		return "the clock is before this hab-gc was built (" + s.NotBefore.UTC().Format(time.RFC3339) + ")"
	}
	s.umu.Lock()
	wentBack := !s.started.IsZero() && now.Before(s.started.Add(-missedGrace))
	s.umu.Unlock()
	if wentBack || st == nil {
		return ""
	}
	if o := oldestRecord(st); !o.IsZero() && now.Add(setBack).Before(o) {
		return "the clock is more than a day before the state's oldest record (" + o.UTC().Format(time.RFC3339) + ")"
	}
	return ""
}

// oldestRecord is the earliest time the state records: a schedule's
// first sighting or a job's creation.
func oldestRecord(st *State) time.Time {
	var o time.Time
	take := func(t time.Time) {
		if !t.IsZero() && (o.IsZero() || t.Before(o)) {
			o = t
		}
	}
	for _, ss := range st.Schedules {
		take(ss.FirstSeen)
	}
	for _, js := range st.Jobs {
		take(js.Since)
	}
	return o
}

// latestRecord is the latest time the state records (first sightings,
// creations, last due times, runs' ends).
func latestRecord(st *State) time.Time {
	var l time.Time
	take := func(t time.Time) {
		if t.After(l) {
			l = t
		}
	}
	for _, ss := range st.Schedules {
		take(ss.FirstSeen)
	}
	for _, js := range st.Jobs {
		take(js.Since)
		if js.LastDue != nil {
			take(*js.LastDue)
		}
		if js.LastRun != nil {
			take(js.LastRun.End)
		}
	}
	return l
}

// holdForClock reports whether the scheduled jobs wait because the clock
// is obviously wrong (clockWrong): nothing runs, nothing is re-anchored,
// and it is said once (at WARN), and again when the clock is right. A
// start made while the clock was wrong is then moved to the first right
// time, so a run missed while the machine was down still waits its
// catch-up delay. A clock set back before the start (it was fast) moves
// the start back too: due times after the correction are not "missed".
func (s *Scheduler) holdForClock(st *State, now time.Time) bool {
	why := s.clockWrong(st, now)
	s.umu.Lock()
	defer s.umu.Unlock()
	was := s.wrongClock
	s.wrongClock = why
	switch {
	case why != "":
		s.startWrong = true // when right, the start is the first right time
		if was == "" {
			s.log().Warn("the clock is obviously wrong; no scheduled job runs until it is right, and the recorded runs are kept", "now", now.UTC().Format(time.RFC3339), "why", why)
		}
		return true
	case was != "":
		s.log().Info("the clock is right again; scheduled jobs run", "now", now.UTC().Format(time.RFC3339))
	}
	if s.startWrong || now.Before(s.started.Add(-missedGrace)) {
		s.started, s.startWrong = now, false
	}
	return false
}
