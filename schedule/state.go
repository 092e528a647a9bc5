package schedule

import (
	"errors"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// errState is wrapped by errors about a state file that is refused.
var errState = errors.New("unusable schedule state")

// errCorruptState (with errState) is a state file to set aside and
// rebuild.
var errCorruptState = errors.New("damaged schedule state")

// ErrNoStatePath is returned by a Scheduler with neither StatePath nor
// StateBesideStores.
var ErrNoStatePath = errors.New("the scheduler has no state path (Scheduler.StatePath): nowhere to record runs")

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

type scheduleRecord struct {
	FirstSeen time.Time  `json:"first_seen"`
	FSRoot    string     `json:"fs_root,omitempty"` // canonical
	File      string     `json:"file,omitempty"`    // while it is rejected, the state is kept
	Gone      *time.Time `json:"gone,omitempty"`    // when a reload first missed it
}

type jobState struct {
	Type      JobType    `json:"type"`
	Store     string     `json:"store"`
	FSRoot    string     `json:"fs_root,omitempty"` // canonical
	Spec      string     `json:"spec"`
	Cron      string     `json:"cron"`
	Owner     string     `json:"owner"`
	Members   []string   `json:"members"`
	Since     time.Time  `json:"since"`    // due times before it do not run
	LastDue   *time.Time `json:"last_due"` // each due time runs once
	LastRun   *RunRecord `json:"last_run"`
	Runs      int        `json:"runs"`
	LastError string     `json:"last_error,omitempty"` // the last attempt that could not run
	CatchUp   *catchUp   `json:"catch_up,omitempty"`
}

// catchUp is a missed due time and when its run is to start.
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
	OK           bool   `json:"ok"`
	Problems     int    `json:"problems"`
	Removed      int    `json:"removed"`
	BytesFreed   int64  `json:"bytes_freed"`
	Error        string `json:"error,omitempty"` // the text of RunOutcome.Err
	HistoryError string `json:"history_error,omitempty"`
	// Notice says how the run differed: a check without the lock; a
	// pressure prune's verdict.
	Notice       string  `json:"notice,omitempty"`
	FreeBefore   int64   `json:"free_before,omitempty"` // a pressure prune's statfs
	FreeAfter    int64   `json:"free_after,omitempty"`
	PacedSeconds float64 `json:"paced_seconds,omitempty"` // deletions held back (Pace)

	// For metrics, not recorded.
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
