package schedule

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// The state is two files (issue 32 item 8): the state file (PATH, the
// base: the whole state, as JSON) and its journal (PATH.journal), which
// continues it. The base names its journal (journal_id); the journal's
// first line is a header naming the base it continues, and each line
// after it a journalRecord: the jobs and schedules one update changed,
// each as it now is. An update appends one line (fsynced), in proportion
// to what changed; when the journal would outgrow the base (at least
// minJournal), the whole state is written as a new base (atomically:
// temporary file, fsync, rename, directory fsync) with a new journal_id,
// and the old journal removed. A journal that names another base (a
// crash between the base's rename and the journal's removal; a base
// replaced or deleted by another) is not read: the base is newer. A last
// line cut short (a crash while appending) was never written as far as
// its update knows; it is ignored, and the next update writes the whole
// state. Any other line that does not parse makes the state damaged
// (ErrCorruptState): both files are kept aside and the state rebuilt.

// minJournal is the size the journal may grow to before the whole state
// is written again, when the base is smaller.
const minJournal = 64 << 10

// stateFile is the encoding of the base: the State and the journal that
// continues it.
type stateFile struct {
	*State
	JournalID string `json:"journal_id,omitempty"`
}

// journalHeader is the journal's first line.
type journalHeader struct {
	Journal int    `json:"journal"` // its format: 1
	Base    string `json:"base"`    // the journal_id of the base it continues
}

// journalPath is the journal of the state file path.
func journalPath(path string) string { return path + ".journal" }

// journalStatus says how an update may write to the journal.
type journalStatus int

const (
	journalNone journalStatus = iota // none, empty, or another base's: a new one is made
	journalOK                        // continues the base, ends whole: appended to
	journalTorn                      // continues the base, its last line cut short: the whole state is written
)

// diskState is the state as its files hold it, and what the next update
// needs to know to write them.
type diskState struct {
	st          *State
	exists      bool   // the base exists
	id          string // the base's journal_id
	journal     journalStatus
	journalSize int64 // bytes of the journal read (whole lines)
	read        int64 // bytes of the journal read (all)
	mark        stateMark
}

// loadState reads the state's files. A base replaced while it was read
// (another process's update) is read again: the base and the journal read
// are one state.
func loadState(path string) (*diskState, error) {
	if path == "" {
		return nil, ErrNoStatePath
	}
	for attempt := 0; ; attempt++ {
		before := marksOf(path)
		d, err := readStateFiles(path)
		if err != nil {
			return nil, err
		}
		after := marksOf(path)
		if before == after && (!after.journal.ok || after.journal.size == d.read) {
			d.mark = after
			return d, nil
		}
		if attempt == 4 {
			return d, nil // a zero mark: read again at the next use
		}
	}
}

func readStateFiles(path string) (*diskState, error) {
	b, err := safeio.ReadFile(path, maxStateSize, safeio.NoFollow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &diskState{st: newState()}, nil // a journal without its base is not read
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%w: state file %s is a symlink; hab-gc neither follows nor replaces it: remove it or name the real file with --state", ErrState, path)
	case errors.Is(err, safeio.ErrNotRegular), errors.Is(err, safeio.ErrTooLarge):
		return nil, fmt.Errorf("%w: state file %s: %v", ErrState, path, errors.Unwrap(err))
	case err != nil:
		return nil, err
	}
	sf := stateFile{State: newState()}
	sf.Version = 0
	if err := json.Unmarshal(b, &sf); err != nil {
		return nil, fmt.Errorf("%w: %w: state file %s: %v", ErrState, ErrCorruptState, path, err)
	}
	st := sf.State
	if st.Version != stateVersion {
		return nil, fmt.Errorf("%w: state file %s has version %d; this hab-gc reads version %d only (written by another hab-gc?)", ErrState, path, st.Version, stateVersion)
	}
	if st.Schedules == nil {
		st.Schedules = map[string]ScheduleState{}
	}
	if st.Jobs == nil {
		st.Jobs = map[string]*JobState{}
	}
	d := &diskState{st: st, exists: true, id: sf.JournalID}
	jpath := journalPath(path)
	jb, err := safeio.ReadFile(jpath, maxStateSize, safeio.NoFollow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return d, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%w: state journal %s is a symlink; hab-gc neither follows nor replaces it: remove it", ErrState, jpath)
	case errors.Is(err, safeio.ErrNotRegular), errors.Is(err, safeio.ErrTooLarge):
		return nil, fmt.Errorf("%w: state journal %s: %v", ErrState, jpath, errors.Unwrap(err))
	case err != nil:
		return nil, err
	}
	d.read = int64(len(jb))
	if d.journal, d.journalSize, err = replay(st, d.id, jb); err != nil {
		return nil, fmt.Errorf("%w: %w: state journal %s: %v", ErrState, ErrCorruptState, jpath, err)
	}
	return d, nil
}

// replay applies to st the records of the journal jb when it continues
// the base whose journal_id is id.
func replay(st *State, id string, jb []byte) (journalStatus, int64, error) {
	line, rest, ok := bytes.Cut(jb, []byte{'\n'})
	if !ok {
		return journalNone, 0, nil // empty, or its header cut short: it holds no record
	}
	var h journalHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return 0, 0, fmt.Errorf("its header: %w", err)
	}
	if h.Journal != 1 {
		return 0, 0, fmt.Errorf("its format %d is not 1", h.Journal)
	}
	if id == "" || h.Base != id {
		return journalNone, 0, nil // another base's: this base is newer
	}
	n := int64(len(line) + 1)
	for len(rest) > 0 {
		line, rest, ok = bytes.Cut(rest, []byte{'\n'})
		if !ok {
			return journalTorn, n, nil // cut short: its update was never written
		}
		var rec journalRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return 0, 0, fmt.Errorf("the record at byte %d: %w", n, err)
		}
		rec.apply(st)
		n += int64(len(line) + 1)
	}
	return journalOK, n, nil
}

// writeState writes an update of d, the state its files hold, to them
// (in root, their directory): rec, what changed, appended to the
// journal, or the whole state after the update (whole) when full or when
// the journal cannot take it. It returns the diskState the files hold
// afterwards (nil: to be read again).
func writeState(root *os.Root, path string, d *diskState, rec journalRecord, full bool, whole func() *State) (*diskState, error) {
	if !full && d.exists && rec.empty() {
		return d, nil
	}
	if full || !d.exists || d.id == "" || d.journal == journalTorn {
		return whole().saveWhole(root, path)
	}
	b, err := json.Marshal(&rec)
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	limit := max(d.mark.base.size, minJournal)
	switch {
	case d.journal == journalOK && d.journalSize+int64(len(b)) <= limit:
		ok, err := appendJournal(root, path, d, b)
		if err != nil {
			return nil, err
		}
		if !ok {
			return whole().saveWhole(root, path)
		}
		d.journalSize += int64(len(b))
	case d.journal == journalNone && int64(len(b)) <= limit:
		hb, err := json.Marshal(journalHeader{Journal: 1, Base: d.id})
		if err != nil {
			return nil, err
		}
		hb = append(hb, '\n')
		if err := writeNew(root, path, filepath.Base(journalPath(path)), append(hb, b...)); err != nil {
			return nil, err
		}
		d.journal, d.journalSize = journalOK, int64(len(hb)+len(b))
	default:
		return whole().saveWhole(root, path)
	}
	// What the files hold now: the record as written, read back (so
	// that nothing the file does not record stays in memory).
	var back journalRecord
	if err := json.Unmarshal(b, &back); err != nil {
		return nil, nil
	}
	back.apply(d.st)
	d.read = d.journalSize
	d.mark = marksOf(path)
	return d, nil
}

// appendJournal appends b to the journal d read, and fsyncs it; false
// when the journal is no longer the file d read.
func appendJournal(root *os.Root, path string, d *diskState, b []byte) (bool, error) {
	name := filepath.Base(journalPath(path))
	f, err := safeio.OpenAt(root, name, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w: state journal %s: %w", ErrState, journalPath(path), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	dev, ino := fileinfo.ID(fi)
	if !fi.Mode().IsRegular() || fi.Size() != d.journalSize || dev != d.mark.journal.dev || ino != d.mark.journal.ino {
		return false, nil
	}
	if _, err := f.Write(b); err != nil {
		return false, err
	}
	if err := f.Sync(); err != nil {
		return false, err
	}
	return true, f.Close()
}

// saveWhole writes the state whole (saveFull), and returns the diskState
// the files then hold: st's values (shared, not copied: see shareJobs).
func (st *State) saveWhole(root *os.Root, path string) (*diskState, error) {
	_, id, err := st.saveFull(root, path)
	if err != nil {
		return nil, err
	}
	return &diskState{st: st.recorded(), exists: true, id: id, mark: marksOf(path)}, nil
}

// saveFull writes the state whole as the base, with a new journal_id,
// and removes the journal it replaces. It returns what it wrote.
func (st *State) saveFull(root *os.Root, path string) (written []byte, id string, err error) {
	id = rand.Text()[:16]
	b, err := json.MarshalIndent(stateFile{State: st, JournalID: id}, "", "  ")
	if err != nil {
		return nil, "", err
	}
	if err := writeNew(root, path, filepath.Base(path), append(b, '\n')); err != nil {
		return nil, "", err
	}
	// The old journal names the old base: harmless if it stays (a
	// crash here), removed so that it does not grow the directory.
	jname := filepath.Base(journalPath(path))
	if fi, err := root.Lstat(jname); err == nil && fi.Mode().IsRegular() {
		safeio.RemoveAt(root, jname)
	}
	return b, id, nil
}

// writeNew replaces the file base in root (the directory of the state
// file path) with b atomically: a temporary file, fsynced, renamed over
// it, and the directory fsynced. A base that is not a regular file is
// refused (ErrState), never replaced.
func writeNew(root *os.Root, path, base string, b []byte) error {
	var f *os.File
	var tmp string
	var err error
	for range 100 { // os.CreateTemp's way, inside root
		tmp = ".hab-gc-state-" + rand.Text()[:16]
		if f, err = safeio.OpenAt(root, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer safeio.RemoveAt(root, tmp)
	if _, err := f.Write(b); err != nil {
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
		return fmt.Errorf("%w: state file %s is not a regular file; not replacing it", ErrState, filepath.Join(filepath.Dir(path), base))
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
