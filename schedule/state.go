package schedule

import (
	"errors"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// errState is wrapped by errors about a state file that is refused: a
// symlink, not a regular file, or of another version.
var errState = errors.New("unusable schedule state")

// errCorruptState (with errState) is a state file that does not parse or
// is larger than 64 MiB. A Scheduler sets it aside and rebuilds the state.
var errCorruptState = errors.New("damaged schedule state")

// ErrNoStatePath is returned by a Scheduler with neither StatePath nor
// StateBesideStores: nowhere to record runs.
var ErrNoStatePath = errors.New("the scheduler has no state path (Scheduler.StatePath): nowhere to record runs")

// stateFile is what the scheduler persists between runs.
type stateFile struct {
	Version int `json:"version"`
	// Machines are the identities randomized times were drawn with, by
	// canonical FS root: a re-created container keeps every job's time.
	Machines  map[string]string         `json:"machines,omitempty"`
	Schedules map[string]scheduleRecord `json:"schedules"`
	// StoreIDs maps a store moved behind a symlink to the path its jobs'
	// keys and times were drawn with.
	StoreIDs map[string]string    `json:"store_ids,omitempty"`
	Jobs     map[string]*jobState `json:"jobs"`
}

// scheduleRecord is one schedule's persisted state.
type scheduleRecord struct {
	FirstSeen time.Time `json:"first_seen"`
	FSRoot    string    `json:"fs_root,omitempty"` // canonical
	// File is the definition file: while it is rejected, the schedule's
	// state is kept.
	File string `json:"file,omitempty"`
	// Gone is when a reload first missed it: it is forgotten after
	// goneGrace, so an editor's save is not a deletion.
	Gone *time.Time `json:"gone,omitempty"`
}

// jobState is one effective job's persisted state.
type jobState struct {
	Type    JobType  `json:"type"`
	Store   string   `json:"store"`
	FSRoot  string   `json:"fs_root,omitempty"` // canonical
	Spec    string   `json:"spec"`
	Cron    string   `json:"cron"`
	Owner   string   `json:"owner"`
	Members []string `json:"members"`
	// Since is when the job first existed: due times before it do not run.
	Since     time.Time  `json:"since"`
	LastDue   *time.Time `json:"last_due"` // each due time runs once
	LastRun   *RunRecord `json:"last_run"`
	Runs      int        `json:"runs"`
	LastError string     `json:"last_error,omitempty"` // the last attempt that could not run
	// CatchUp is when a missed run runs, so that restarts do not put it off.
	CatchUp *catchUp `json:"catch_up,omitempty"`
}

// CatchUp is a missed due time and when its run is to start.
type catchUp struct {
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
	Problems   int   `json:"problems"`
	Removed    int   `json:"removed"`
	BytesFreed int64 `json:"bytes_freed"`
	// Error is the text of the run's error (RunOutcome.Err).
	Error        string `json:"error,omitempty"`
	HistoryError string `json:"history_error,omitempty"` // the history journal not written
	// Notice says how the run differed: a check without the lock; a
	// pressure prune's verdict.
	Notice     string `json:"notice,omitempty"`
	FreeBefore int64  `json:"free_before,omitempty"` // a pressure prune's statfs
	FreeAfter  int64  `json:"free_after,omitempty"`
	// PacedSeconds is how long a prune held its deletions back (Pace).
	PacedSeconds float64 `json:"paced_seconds,omitempty"`

	// For metrics, not recorded: the prune's plan report with Apply's
	// outcomes, and the problems found.
	Plan        *retention.Report  `json:"-"`
	ProblemList []pkgstore.Problem `json:"-"`
}

func newState() *stateFile { return (&stateFile{Version: stateVersion}).init() }

// init makes st's nil maps, so that no user of a state checks for them.
func (st *stateFile) init() *stateFile {
	if st.Machines == nil {
		st.Machines = map[string]string{}
	}
	if st.Schedules == nil {
		st.Schedules = map[string]scheduleRecord{}
	}
	if st.StoreIDs == nil {
		st.StoreIDs = map[string]string{}
	}
	if st.Jobs == nil {
		st.Jobs = map[string]*jobState{}
	}
	return st
}

const (
	maxStateSize = 64 << 20 // what readStateFile reads
	stateVersion = 1        // the only format readStateFile reads
)
