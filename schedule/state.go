package schedule

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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

// LoadState reads a state file; a missing one is an empty state. A state
// file that is a symlink or not a regular file, is larger than 64 MiB or
// has a version other than 1 is refused (ErrState), as the lock file rules
// do: the scheduler never reads or replaces what the name points to.
func LoadState(path string) (*State, error) {
	if path == "" {
		return nil, ErrNoStatePath
	}
	b, err := safeio.ReadFile(path, maxStateSize, safeio.NoFollow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newState(), nil
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%w: state file %s is a symlink; hab-gc neither follows nor replaces it: remove it or name the real file with --state", ErrState, path)
	case errors.Is(err, safeio.ErrNotRegular), errors.Is(err, safeio.ErrTooLarge):
		return nil, fmt.Errorf("%w: state file %s: %v", ErrState, path, errors.Unwrap(err))
	case err != nil:
		return nil, err
	}
	st := newState()
	st.Version = 0
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("%w: %w: state file %s: %v", ErrState, ErrCorruptState, path, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("%w: state file %s has version %d; this hab-gc reads version %d only (written by another hab-gc?)", ErrState, path, st.Version, stateVersion)
	}
	if st.Schedules == nil {
		st.Schedules = map[string]ScheduleState{}
	}
	if st.Jobs == nil {
		st.Jobs = map[string]*JobState{}
	}
	return st, nil
}

// Save writes the state atomically: a temporary file in the same
// directory (made when missing), fsynced, renamed over the old one, and
// the directory fsynced.
func (st *State) Save(path string) error {
	root, err := stateDir("", path)
	if err != nil {
		return err
	}
	defer root.Close()
	return st.save(root, path)
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

// save writes the state as Save does, in root, the state file's
// directory.
func (st *State) save(root *os.Root, path string) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	base := filepath.Base(path)
	var f *os.File
	var tmp string
	for range 100 { // os.CreateTemp's way, inside root
		tmp = ".hab-gc-state-" + rand.Text()[:16]
		if f, err = safeio.OpenAt(root, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer root.Remove(tmp)
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if fi, err := root.Lstat(base); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: state file %s is not a regular file; not replacing it", ErrState, path)
	}
	if err := root.Rename(tmp, base); err != nil {
		return err
	}
	if d, err := root.Open("."); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
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
	st, err := LoadState(path)
	if errors.Is(err, ErrCorruptState) {
		st, err = s.keepAside(path, err)
	}
	if err != nil {
		return err
	}
	if f(st) {
		err := st.save(root, path)
		if err == nil {
			s.markState()
		}
		return err
	}
	return nil
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

// markState records the state file as it is now: this scheduler just
// wrote or read it.
func (s *Scheduler) markState() {
	m := markOf(s.StatePath)
	s.umu.Lock()
	s.stateSeen = m
	s.umu.Unlock()
}

// stateChanged reports whether the state file is not as this scheduler
// last wrote or read it (one lstat). Read-only schedulers never rebuild
// it, so for them it never has.
func (s *Scheduler) stateChanged() bool {
	if s.ReadOnly || s.StatePath == "" {
		return false
	}
	m := markOf(s.StatePath)
	s.umu.Lock()
	defer s.umu.Unlock()
	return !s.stateSeen.ok || m != s.stateSeen
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
