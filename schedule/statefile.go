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

// The state is one JSON file, replaced whole and atomically (a temporary
// file in its directory, fsynced, renamed over it, the directory fsynced)
// when an update changes it. A Scheduler keeps the bytes it last read or
// wrote with the file's mark (device, inode, size, modification time) and
// reads the file again only when the mark changes. Nothing else locks it:
// a run holds its store's lock, and reads the file again under it.

// fileMark is what a stat of the state file shows of it: a file replaced,
// written or deleted by another has another mark.
type fileMark struct {
	ok        bool
	dev, ino  uint64
	size      int64
	modTimeNs int64
}

func markOf(path string) fileMark {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileMark{}
	}
	m := fileMark{ok: true, size: fi.Size(), modTimeNs: fi.ModTime().UnixNano()}
	m.dev, m.ino = fileinfo.ID(fi)
	return m
}

// stateCache is the state file as this Scheduler last read or wrote it.
type stateCache struct {
	b    []byte // nil: no file
	mark fileMark
}

// readStateFile reads and decodes the state file (a missing one is an
// empty state). A symlink, anything but a regular file, and a version
// other than stateVersion are refused (ErrState); a file that does not
// parse or is larger than maxStateSize is damaged (ErrCorruptState).
func readStateFile(path string) (*State, []byte, error) {
	if path == "" {
		return nil, nil, ErrNoStatePath
	}
	b, err := safeio.ReadFile(path, maxStateSize, safeio.NoFollow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newState(), nil, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, nil, fmt.Errorf("%w: state file %s is a symlink; hab-gc neither follows nor replaces it: remove it or name the real file with --state", ErrState, path)
	case errors.Is(err, safeio.ErrTooLarge):
		return nil, nil, fmt.Errorf("%w: %w: state file %s: %v", ErrState, ErrCorruptState, path, errors.Unwrap(err))
	case errors.Is(err, safeio.ErrNotRegular):
		return nil, nil, fmt.Errorf("%w: state file %s: %v", ErrState, path, errors.Unwrap(err))
	case err != nil:
		return nil, nil, err
	}
	st, err := decodeState(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: state file %s: %w", ErrState, path, err)
	}
	return st, b, nil
}

func decodeState(b []byte) (*State, error) {
	st := newState()
	st.Version = 0
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptState, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("version %d; this hab-gc reads version %d only (written by another hab-gc?)", st.Version, stateVersion)
	}
	if st.Schedules == nil {
		st.Schedules = map[string]ScheduleState{}
	}
	if st.Jobs == nil {
		st.Jobs = map[string]*JobState{}
	}
	return st, nil
}

// current returns a copy of the state as its file holds it, read only
// when the file's mark changed since this Scheduler last read or wrote it.
// Called with smu held.
func (s *Scheduler) current() (*State, error) {
	if m := markOf(s.StatePath); !m.ok || m != s.cache.mark {
		st, b, err := readStateFile(s.StatePath)
		if err != nil {
			return nil, err
		}
		s.cache = stateCache{b: b, mark: m}
		if b == nil {
			return st, nil
		}
	}
	if s.cache.b == nil {
		return newState(), nil
	}
	return decodeState(s.cache.b) // a copy the caller may change
}

// readState returns the state as its file holds it. A damaged file is
// set aside (and an empty state returned, for the caller to restore).
func (s *Scheduler) readState() (*State, error) {
	s.smu.Lock()
	defer s.smu.Unlock()
	st, err := s.current()
	if errors.Is(err, ErrCorruptState) && !s.ReadOnly {
		err = s.setAside(err)
		st = newState()
	}
	return st, err
}

// stateChanged reports whether the state file is not as this Scheduler
// last read or wrote it (one lstat). Read-only schedulers never rebuild
// it, so for them it never has.
func (s *Scheduler) stateChanged() bool {
	if s.ReadOnly || s.StatePath == "" {
		return false
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	return markOf(s.StatePath) != s.cache.mark
}

// update runs f on the state as its file holds it and writes the file
// when f returns true and the state's encoding changed. A damaged file
// is set aside first (setAside) and f given an empty state.
func (s *Scheduler) update(f func(*State) bool) error {
	if s.StatePath == "" {
		return ErrNoStatePath
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	st, err := s.current()
	if errors.Is(err, ErrCorruptState) {
		if err = s.setAside(err); err == nil {
			st = newState()
		}
	}
	if err != nil {
		return err
	}
	if !f(st) {
		return nil
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if s.cache.mark.ok && bytes.Equal(b, s.cache.b) {
		return nil
	}
	if err := writeStateFile(s.StateRoot, s.StatePath, b); err != nil {
		return err
	}
	s.cache = stateCache{b: b, mark: markOf(s.StatePath)}
	return nil
}

// Save writes the state whole and atomically (see writeStateFile).
func (st *State) Save(path string) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeStateFile("", path, append(b, '\n'))
}

// writeStateFile replaces the state file path with b atomically: a
// temporary file, fsynced, renamed over it, and the directory fsynced. A
// path that is not a regular file is refused (ErrState), never replaced.
func writeStateFile(fsRoot, path string, b []byte) error {
	root, err := stateDir(fsRoot, path)
	if err != nil {
		return err
	}
	defer root.Close()
	base := filepath.Base(path)
	if fi, err := root.Lstat(base); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: state file %s is not a regular file; not replacing it", ErrState, path)
	}
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
	defer safeio.RemoveAt(root, tmp)
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
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

// setAside renames a damaged state file (why) to PATH.corrupt-TIME, a
// name that did not exist, for the operator, and says so at ERROR. The
// jobs are then rebuilt from memory and from their definitions (see
// lostSince). Called with smu held.
func (s *Scheduler) setAside(why error) error {
	path := s.StatePath
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
		if err == nil {
			err = os.Remove(path)
		}
		if err != nil {
			return fmt.Errorf("%w (setting it aside as %s: %w)", why, aside, err)
		}
		s.cache = stateCache{}
		s.lost = true
		s.log().Error("the schedule state file is damaged; it is set aside and rebuilt: a job whose definition existed before its last due time runs that due time once",
			"state", path, "set_aside_as", aside, "error", why)
		return nil
	}
	return fmt.Errorf("%w (no free name to set it aside)", why)
}

// LoadState reads a state file; a missing one is an empty state. A state
// file that is a symlink or not a regular file, or has a version other
// than 1, is refused (ErrState); one larger than 64 MiB or that does not
// parse is damaged (ErrCorruptState, with ErrState).
func LoadState(path string) (*State, error) {
	st, _, err := readStateFile(path)
	return st, err
}
