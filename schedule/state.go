package schedule

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// ErrState is wrapped by errors about a state file that is refused.
var ErrState = errors.New("unusable schedule state")

// ErrCorruptState is wrapped (with ErrState) by LoadState's error about a
// state file that does not parse (zero bytes, garbage, JSON cut short: a
// crash, a full disk). A Scheduler does not stop at it: it keeps the file
// aside (keepAside) and rebuilds the state.
var ErrCorruptState = errors.New("damaged schedule state")

// ErrNoStatePath is returned by a Scheduler without a StatePath (the zero
// Scheduler): where the runs are recorded must be said, and nothing is
// written without it.
var ErrNoStatePath = errors.New("the scheduler has no state path (Scheduler.StatePath): nowhere to record runs")

// State is what the scheduler persists between runs.
type State struct {
	Version int `json:"version"`
	// Machine is the identity randomized times were drawn with (see
	// HashInput.Machine): kept for the life of the state, so that a
	// re-created container (a new host name) keeps every job's time.
	Machine string `json:"machine,omitempty"`
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
	Type    JobType  `json:"type"`
	Store   string   `json:"store"`
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
	// Claim is the run under way (see Claim).
	Claim *Claim `json:"claim,omitempty"`
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

// LoadState reads a state file and its journal (PATH.journal: see
// journal.go); a missing state file is an empty state. A state file or
// journal that is a symlink or not a regular file, is larger than 64 MiB
// or has a version other than 1 is refused (ErrState), as the lock file
// rules do: the scheduler never reads or replaces what the name points
// to.
func LoadState(path string) (*State, error) {
	d, err := loadState(path)
	if err != nil {
		return nil, err
	}
	return d.st, nil
}

// Save writes the state whole and atomically: a temporary file in the
// same directory (made when missing), fsynced, renamed over the old one,
// and the directory fsynced; the journal of the old one is removed.
func (st *State) Save(path string) error {
	root, err := stateDir("", path)
	if err != nil {
		return err
	}
	defer root.Close()
	_, _, err = st.saveFull(root, path)
	return err
}

// stateDir opens the directory of the state file path as an os.Root,
// making it when missing. With fsRoot (Scheduler.StateRoot), no
// directory from fsRoot down may be a symlink (safeio.OpenRootBeneath);
// without, the directory is made and opened as given.
func stateDir(fsRoot, path string) (*os.Root, error) {
	dir := filepath.Dir(path)
	if fsRoot == "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		return os.OpenRoot(safeio.Dir(dir))
	}
	rel, err := filepath.Rel(fsRoot, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%w: state file %s is not below its FS root %s", ErrState, path, fsRoot)
	}
	r, err := safeio.OpenRootBeneath(fsRoot, filepath.ToSlash(rel), true)
	if err != nil {
		return nil, fmt.Errorf("%w: state file %s: %w", ErrState, path, err)
	}
	return r, nil
}

// updateState runs f on the state read fresh from disk, under an
// exclusive lock on StatePath.lock (waiting at most StateLockTimeout), and
// saves it when f returns true. Two schedulers sharing a state file never
// lose each other's updates.
//
// The lock file follows the rules of the store's lock file: it is
// opened without following a symlink or blocking, created mode 0600, and
// must be a regular file with one link owned by the effective user;
// anything else at its name is refused (ErrState) and never written.
func (s *Scheduler) updateState(f func(*State) bool) error {
	return s.update(nil, f)
}

// updateJobs is updateState for an update of the jobs with keys alone
// (a claim, a run's record): f is given a State holding copies of those
// jobs only (those the files hold), and no schedules (a nil map: an
// update of schedules uses updateState); only those jobs are compared
// and written. It costs in proportion to the jobs, not to the fleet.
func (s *Scheduler) updateJobs(keys []string, f func(*State) bool) error {
	if keys == nil {
		keys = []string{}
	}
	return s.update(keys, f)
}

// update is updateState (keys nil) or updateJobs.
func (s *Scheduler) update(keys []string, f func(*State) bool) error {
	path := s.StatePath
	if path == "" {
		return ErrNoStatePath
	}
	wait := s.StateLockTimeout
	if wait <= 0 {
		wait = DefaultStateLockTimeout
	}
	root, err := stateDir(s.StateRoot, path)
	if err != nil {
		return err
	}
	defer root.Close()
	unlock, err := lockState(root, path, wait)
	if err != nil {
		return err
	}
	defer unlock()
	s.smu.Lock()
	defer s.smu.Unlock()
	d, err := s.diskLocked(path)
	if errors.Is(err, ErrCorruptState) {
		var st *State
		if st, err = s.keepAside(path, err); err == nil {
			d = &diskState{st: st} // written whole
		}
	}
	if err != nil {
		return err
	}
	// f changes a copy: an update that is not saved (or fails) leaves
	// the state as the files hold it.
	var w *State
	if keys == nil {
		w = cloneState(d.st)
	} else {
		w = partialState(d.st, keys)
	}
	if !f(w) {
		return nil
	}
	var rec journalRecord
	full := false
	whole := func() *State { return w }
	if keys == nil {
		rec, full = diffState(d.st, w)
	} else {
		rec, full = diffJobs(d.st, w, keys)
		whole = func() *State {
			st := d.st.shallow() // written, not changed: the kept jobs are shared
			rec.apply(st)
			return st
		}
	}
	s.disk, err = writeState(root, path, d, rec, full, whole)
	if err == nil {
		s.markState()
	}
	return err
}

// diskLocked returns the state as its files hold it: as this scheduler
// last read or wrote them when their marks are unchanged (nothing is read
// again), else read. Called with smu held.
func (s *Scheduler) diskLocked(path string) (*diskState, error) {
	if d := s.disk; d != nil && d.mark.base.ok && marksOf(path) == d.mark {
		return d, nil
	}
	s.disk = nil
	d, err := loadState(path)
	if err != nil {
		return nil, err
	}
	s.disk = d
	return d, nil
}

// readState returns the state as its files hold it (read only when they
// changed since this scheduler last read or wrote them), and marks it as
// seen (stateChanged). Its maps are its own, but its JobStates are the
// ones the scheduler keeps of the files: a caller copies one before
// changing it.
func (s *Scheduler) readState() (*State, error) {
	s.smu.Lock()
	defer s.smu.Unlock()
	d, err := s.diskLocked(s.StatePath)
	if err != nil {
		return nil, err
	}
	s.umu.Lock()
	s.stateSeen = d.mark
	s.umu.Unlock()
	return d.st.shallow(), nil
}

// shareView makes the jobs of view (what Reload leaves in memory) that
// are as the state's files hold them the very JobStates of disk, and
// copies the others out of the clone they were made in, so that the two
// do not each hold the fleet: neither is ever changed in place (entries
// are replaced: remember, journalRecord.apply).
func (s *Scheduler) shareView(view *State) {
	s.smu.Lock()
	defer s.smu.Unlock()
	var disk map[string]*JobState
	if s.disk != nil {
		disk = s.disk.st.Jobs
	}
	for k, js := range view.Jobs {
		if js == nil {
			continue
		}
		if d := disk[k]; d != nil && jobStateEqual(d, js) {
			view.Jobs[k] = d
		} else {
			view.Jobs[k] = copyJobState(js)
		}
	}
}

// fileMark is what a stat of the state file shows of it: a file replaced,
// written or deleted by another has another mark.
type fileMark struct {
	ok        bool
	dev, ino  uint64
	size      int64
	modTimeNs int64
}

// markOf returns the state file's mark (not ok when it cannot be stat'ed).
func markOf(path string) fileMark {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileMark{}
	}
	m := fileMark{ok: true, size: fi.Size(), modTimeNs: fi.ModTime().UnixNano()}
	m.dev, m.ino = fileinfo.ID(fi)
	return m
}

// markState records the state's files as they are now: this scheduler
// just wrote them.
func (s *Scheduler) markState() {
	m := marksOf(s.StatePath)
	s.umu.Lock()
	s.stateSeen = m
	s.umu.Unlock()
}

// stateChanged reports whether the state's files are not as this
// scheduler last wrote or read them (two lstats). Read-only schedulers never rebuild
// it, so for them it never has.
func (s *Scheduler) stateChanged() bool {
	if s.ReadOnly || s.StatePath == "" {
		return false
	}
	m := marksOf(s.StatePath)
	s.umu.Lock()
	defer s.umu.Unlock()
	return !s.stateSeen.base.ok || m != s.stateSeen
}

// DefaultStateLockTimeout is the wait for the state's lock when
// Scheduler.StateLockTimeout is zero.
const DefaultStateLockTimeout = 10 * time.Second

// ErrStateBusy is wrapped by the error of a state update that gave up
// waiting for the state's lock (held past Scheduler.StateLockTimeout).
var ErrStateBusy = errors.New("the schedule state's lock is held by another process")

// lockState takes the exclusive lock PATH.lock in root (PATH's
// directory), waiting for it at most wait.
func lockState(root *os.Root, path string, wait time.Duration) (unlock func() error, err error) {
	name := filepath.Base(path) + ".lock"
	f, err := safeio.OpenPrivate(root, name, os.O_RDWR|os.O_CREATE, safeio.IsEUID, true)
	if errors.Is(err, safeio.ErrUnsafe) {
		return nil, fmt.Errorf("%w: state lock: %v", ErrState, err)
	}
	if err != nil {
		return nil, fmt.Errorf("locking state %s: %w", path, err)
	}
	rc, err := f.SyscallConn()
	if err == nil {
		err = flockBounded(rc, wait)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking state %s: %w", path, err)
	}
	// The lock guards the state only if the name still leads to the
	// locked file.
	held, err1 := f.Stat()
	now, err2 := root.Lstat(name)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		f.Close()
		return nil, fmt.Errorf("%w: state lock %s was replaced while being locked; try again", ErrState, f.Name())
	}
	return f.Close, nil
}

// keepAside renames a damaged state file (ErrCorruptState: why) to
// PATH.corrupt-TIME, a name that did not exist (never over an earlier one),
// for the operator, says so at ERROR, and returns an empty state for the
// caller to rebuild (from the Scheduler's memory: Reload, restore). It is
// called under the state's lock.
func (s *Scheduler) keepAside(path string, why error) (*State, error) {
	stamp := s.now().UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		aside := path + ".corrupt-" + stamp
		if i > 0 {
			aside += fmt.Sprintf("-%d", i)
		}
		// A hard link never replaces an existing name; the damaged name
		// goes only once the link holds its bytes.
		err := os.Link(path, aside)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w (keeping it aside as %s: %v)", why, aside, err)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("%w (kept aside as %s, but not removed: %v)", why, aside, err)
		}
		// The journal too (it may be what is damaged), under a name of
		// its own: PATH.journal.corrupt-TIME.
		jpath := journalPath(path)
		if fi, err := os.Lstat(jpath); err == nil && fi.Mode().IsRegular() {
			jaside := jpath + aside[len(path):]
			if err := os.Link(jpath, jaside); err != nil {
				return nil, fmt.Errorf("%w (keeping its journal aside as %s: %v)", why, jaside, err)
			}
			if err := os.Remove(jpath); err != nil {
				return nil, fmt.Errorf("%w (its journal kept aside as %s, but not removed: %v)", why, jaside, err)
			}
		}
		s.log().Error("the schedule state file is damaged; it is kept aside for inspection and rebuilt from what this hab-gc knows (jobs it does not know start anew: none runs at once)",
			"state", path, "kept_as", aside, "error", why)
		return newState(), nil
	}
	return nil, fmt.Errorf("%w (no free name to keep it aside)", why)
}

// storeIDs returns (and records in st.StoreIDs) the identities of the
// stores moved behind a symlink: a store path a job recorded that now
// resolves elsewhere (hab/pkgs moved and linked back) keeps that path as
// the identity of the store it leads to, unless that store has jobs of its
// own in the state (then it is another store, not a move).
func storeIDs(st *State) map[string]string {
	ids := map[string]string{}
	for k, v := range st.StoreIDs {
		ids[k] = v
	}
	own := map[string]bool{}
	for _, js := range st.Jobs {
		own[js.Store] = true
	}
	resolved := map[string]string{}
	for _, js := range st.Jobs {
		if js.Store == "" {
			continue
		}
		now, ok := resolved[js.Store]
		if !ok {
			now, _ = canonicalPath(js.Store)
			resolved[js.Store] = now
		}
		if now == "" || now == js.Store || own[now] {
			continue
		}
		if _, ok := ids[now]; ok {
			continue
		}
		id := js.Store
		if v, ok := ids[js.Store]; ok {
			id = v
		}
		ids[now] = id
	}
	if len(ids) > 0 {
		st.StoreIDs = ids
	}
	return ids
}
