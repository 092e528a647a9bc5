package schedule

import (
	"errors"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// ErrState is wrapped by errors about a state file that is refused.
var ErrState = errors.New("unusable schedule state")

// ErrCorruptState is wrapped (with ErrState) by LoadState's error about a
// state file that does not parse (zero bytes, garbage, JSON cut short: a
// crash, a full disk) or is larger than 64 MiB. A Scheduler does not stop
// at it: it sets the file aside and rebuilds the state.
var ErrCorruptState = errors.New("damaged schedule state")

// ErrNoStatePath is returned by a Scheduler with neither StatePath nor
// StateBesideStores (the zero Scheduler): where the runs are recorded
// must be said, and nothing is written without it.
var ErrNoStatePath = errors.New("the scheduler has no state path (Scheduler.StatePath): nowhere to record runs")

// State is what the scheduler persists between runs.
type State struct {
	Version int `json:"version"`
	// Machines are the identities randomized times were drawn with (see
	// HashInput.Machine), by canonical FS root: kept for the life of the
	// state, so that a re-created container (a new host name) keeps every
	// job's time.
	Machines map[string]string `json:"machines,omitempty"`
	// Schedules records when each schedule was first seen (its created
	// time when the file gives none).
	Schedules map[string]ScheduleState `json:"schedules"`
	// StoreIDs maps a store's canonical path to the one its jobs' keys and
	// randomized times were drawn with, for a store moved behind a
	// symlink (hab/pkgs moved to another disk and linked back): it keeps
	// its jobs, times and history.
	StoreIDs map[string]string `json:"store_ids,omitempty"`
	// Jobs are the effective jobs by key.
	Jobs map[string]*JobState `json:"jobs"`
}

// ScheduleState is one schedule's persisted state.
type ScheduleState struct {
	FirstSeen time.Time `json:"first_seen"`
	// FSRoot is the canonical FS root its definition names.
	FSRoot string `json:"fs_root,omitempty"`
	// File is the definition file it was last read from: while that file
	// is rejected (a half-written save), the schedule's state is kept.
	File string `json:"file,omitempty"`
	// Gone is when a reload first found no definition of it: it is
	// forgotten (with the jobs only it asked for) once it has been gone
	// for goneGrace, so that an editor's save (rename away, write again)
	// is not a deletion.
	Gone *time.Time `json:"gone,omitempty"`
}

// JobState is one effective job's persisted state.
type JobState struct {
	Type  JobType `json:"type"`
	Store string  `json:"store"`
	// FSRoot is the canonical FS root the job's store is reached through
	// (Job.FSRoot, resolved): its state file beside the stores, and the
	// machine identity its time is drawn with.
	FSRoot  string   `json:"fs_root,omitempty"`
	Spec    string   `json:"spec"`
	Cron    string   `json:"cron"`
	Owner   string   `json:"owner"`
	Members []string `json:"members"`
	// Since is when the job first existed: due times before it are not
	// run (a new schedule does not run at once).
	Since time.Time `json:"since"`
	// LastDue is the due time of the last run; each due time runs once.
	LastDue *time.Time `json:"last_due"`
	LastRun *RunRecord `json:"last_run"`
	Runs    int        `json:"runs"`
	// LastError is the last attempt that could not run (lock timeout,
	// unusable store), which is retried.
	LastError string `json:"last_error,omitempty"`
	// CatchUp is when a run missed while hab-gc was down runs (its
	// catch-up delay after the start that found it): kept, so that
	// restarts do not put it off again.
	CatchUp *CatchUp `json:"catch_up,omitempty"`
}

// CatchUp is a missed due time and when its run is to start.
type CatchUp struct {
	Due time.Time `json:"due"`
	At  time.Time `json:"at"`
}

// RunRecord is one run.
type RunRecord struct {
	Due    time.Time `json:"due"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Result RunResult `json:"result"`
}

// RunResult is what a job's run found or did.
type RunResult struct {
	OK         bool  `json:"ok"`
	Problems   int   `json:"problems"` // how many; ProblemList lists them
	Removed    int   `json:"removed"`
	BytesFreed int64 `json:"bytes_freed"`
	// Error is the text of the run's error (empty: it did not fail), as
	// the state file records it, and Err the error itself, for errors.Is
	// and errors.As: retention.ErrDamaged, pkgstore.ErrLocked,
	// ErrRemovalsFailed (with each release's *retention.ReleaseError)...
	// An error cannot be written to the state file and read back, so Err
	// exists only in the process that ran the job: a result read back
	// from the state file (LoadState) has Error and a nil Err. A RunFunc
	// may set Err alone; the Scheduler fills Error from it.
	Error string `json:"error,omitempty"`
	Err   error  `json:"-"`
	// HistoryError says why a prune's records could not be appended to
	// the history journal (see package history).
	HistoryError string `json:"history_error,omitempty"`
	// Notice says how the run differed from the usual one: a check
	// made without the store's lock; a pressure prune's verdict.
	Notice string `json:"notice,omitempty"`
	// FreeBefore and FreeAfter are a pressure prune's free space (statfs)
	// before planning and after removing, in bytes.
	FreeBefore int64 `json:"free_before,omitempty"`
	FreeAfter  int64 `json:"free_after,omitempty"`

	// What the run saw, for metrics; not recorded in the state. Plan is
	// the prune's plan report (with Apply's outcomes), Problems the
	// check's (or the refused prune's) problems.
	Plan        *retention.Report  `json:"-"`
	ProblemList []pkgstore.Problem `json:"-"`
}

func newState() *State {
	return &State{Version: stateVersion, Schedules: map[string]ScheduleState{}, Jobs: map[string]*JobState{}}
}

// maxStateSize bounds what LoadState reads.
const maxStateSize = 64 << 20

// stateVersion is the only state format LoadState reads.
const stateVersion = 1
