package schedule

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// fileMark is what a stat of a state file shows: a file replaced, written
// or deleted by another has another mark. Nothing else locks the state: a
// run holds its store's lock, and reads the file again under it.
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

type stateCache struct {
	b    []byte // nil: no file
	mark fileMark
}

// readStateFile reads and decodes a state file (a missing one is an empty
// state).
func readStateFile(path string) (*stateFile, []byte, error) {
	if path == "" {
		return nil, nil, ErrNoStatePath
	}
	b, err := safeio.ReadFile(path, maxStateSize, safeio.NoFollow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newState(), nil, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, nil, fmt.Errorf("%w: state file %s is a symlink; hab-gc neither follows nor replaces it: remove it or name the real file with --state", errState, path)
	case errors.Is(err, safeio.ErrTooLarge):
		return nil, nil, fmt.Errorf("%w: %w: state file %s: %v", errState, errCorruptState, path, errors.Unwrap(err))
	case errors.Is(err, safeio.ErrNotRegular):
		return nil, nil, fmt.Errorf("%w: state file %s: %v", errState, path, errors.Unwrap(err))
	case err != nil:
		return nil, nil, err
	}
	st, err := decodeState(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: state file %s: %w", errState, path, err)
	}
	return st, b, nil
}

func decodeState(b []byte) (*stateFile, error) {
	st := &stateFile{}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("%w: %v", errCorruptState, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("version %d; this hab-gc reads version %d only (written by another hab-gc?)", st.Version, stateVersion)
	}
	return st.init(), nil
}

// stateFiles returns the state's files, sorted, each with the FS root
// below which no directory to it may be a symlink: StatePath alone, or the
// default state file of every FS root named since the start.
func (s *Scheduler) stateFiles() (paths []string, roots map[string]string) {
	roots = map[string]string{}
	if !s.StateBesideStores {
		return []string{s.StatePath}, map[string]string{s.StatePath: ""}
	}
	for r := range s.roots {
		p := statePathAt(r)
		roots[p] = r
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths, roots
}

func (s *Scheduler) statePlace() string {
	if s.StateBesideStores {
		return statePathAt("FS_ROOT") + " of each FS root"
	}
	return s.StatePath
}

// readPart returns a copy of one state file, read again only when its
// mark changed. Called with smu held.
func (s *Scheduler) readPart(path string) (*stateFile, error) {
	c, ok := s.cache[path]
	if m := markOf(path); !ok || !m.ok || m != c.mark {
		st, b, err := readStateFile(path)
		if err != nil {
			return nil, err
		}
		s.cache[path] = stateCache{b: b, mark: m}
		return st, nil
	}
	if c.b == nil {
		return newState(), nil
	}
	return decodeState(c.b) // a copy the caller may change
}

// current returns the state its files hold, as one. A damaged file counts
// as empty: set aside when fix, else logged and left for a daemon to set
// aside. Called with smu held.
func (s *Scheduler) current(fix bool) (*stateFile, error) {
	paths, roots := s.stateFiles()
	st := newState()
	if s.cache == nil {
		s.cache = map[string]stateCache{}
	}
	for _, path := range paths {
		part, err := s.readPart(path)
		if errors.Is(err, errCorruptState) {
			if fix {
				err = s.setAside(path, err)
			} else {
				s.log().Error("the schedule state file is damaged; showing its jobs as new (a daemon keeps the file aside and rebuilds it)", "state", path, "error", err)
				err = nil
			}
			part = newState()
		}
		if err != nil {
			return nil, err
		}
		merge(st, part, roots[path])
	}
	return st, nil
}

// load returns the state its files hold, setting nothing aside.
func (s *Scheduler) load() (*stateFile, error) {
	s.smu.Lock()
	defer s.smu.Unlock()
	return s.current(false)
}

// readState returns the state its files hold, a damaged file set aside.
func (s *Scheduler) readState() (*stateFile, error) {
	s.smu.Lock()
	defer s.smu.Unlock()
	return s.current(!s.ReadOnly)
}

// hasState reports whether the Scheduler has somewhere to keep its state.
func (s *Scheduler) hasState() bool {
	return s.StatePath != "" || s.StateBesideStores
}

// update runs f on the state and, when f returns true, writes each file
// whose part changed.
func (s *Scheduler) update(f func(*stateFile) bool) error {
	if !s.hasState() {
		return ErrNoStatePath
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	st, err := s.current(true)
	if err != nil || !f(st) {
		return err
	}
	paths, roots := s.stateFiles()
	parts := map[string]*stateFile{s.StatePath: st}
	if s.StateBesideStores {
		parts = split(st, roots)
	}
	var errs []error
	for _, path := range paths {
		part := parts[path]
		if part == nil {
			part = newState()
		}
		b, err := json.MarshalIndent(part, "", "  ")
		if err != nil {
			return err
		}
		b = append(b, '\n')
		c := s.cache[path]
		if c.mark.ok && bytes.Equal(b, c.b) || !c.mark.ok && part.empty() {
			continue
		}
		if err := writeStateFile(roots[path], path, b); err != nil {
			errs = append(errs, err)
			continue
		}
		s.cache[path] = stateCache{b: b, mark: markOf(path)}
	}
	return errors.Join(errs...)
}

// writeStateFile replaces the state file path with b atomically, and never
// what is not a regular file.
func writeStateFile(fsRoot, path string, b []byte) error {
	root, err := stateDir(fsRoot, path)
	if err != nil {
		return err
	}
	defer root.Close()
	base := filepath.Base(path)
	if fi, err := root.Lstat(base); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: state file %s is not a regular file; not replacing it", errState, path)
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
		return nil, fmt.Errorf("%w: state file %s is not below its FS root %s", errState, path, fsRoot)
	}
	r, err := safeio.OpenRootBeneath(fsRoot, filepath.ToSlash(rel), true)
	if err != nil {
		return nil, fmt.Errorf("%w: state file %s: %w", errState, path, err)
	}
	return r, nil
}

// setAside renames a damaged state file to PATH.corrupt-TIME for the
// operator.
func (s *Scheduler) setAside(path string, why error) error {
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
		delete(s.cache, path)
		s.lost = true
		s.log().Error("the schedule state file is damaged; it is set aside and rebuilt: a job whose definition existed before its last due time runs that due time once",
			"state", path, "set_aside_as", aside, "error", why)
		return nil
	}
	return fmt.Errorf("%w (no free name to set it aside)", why)
}

// merge adds part, the file of FS root root, to st: an entry that names
// no FS root is that file's. A job two files hold (a write of both cut
// short) is the one run later.
func merge(st, part *stateFile, root string) {
	for r, m := range part.Machines {
		if _, ok := st.Machines[r]; !ok {
			st.Machines[r] = m
		}
	}
	for n, ss := range part.Schedules {
		if _, ok := st.Schedules[n]; !ok {
			ss.FSRoot = cmp.Or(ss.FSRoot, root)
			st.Schedules[n] = ss
		}
	}
	for k, v := range part.StoreIDs {
		if _, ok := st.StoreIDs[k]; !ok {
			st.StoreIDs[k] = v
		}
	}
	for k, js := range part.Jobs {
		if had := st.Jobs[k]; had == nil || anchor(js).After(anchor(had)) {
			js.FSRoot = cmp.Or(js.FSRoot, root)
			st.Jobs[k] = js
		}
	}
}

// split divides st among the files of roots (path to FS root), each entry
// to the file of the FS root it records (a store's identity: its jobs'),
// so that each FS root's file holds its own jobs only.
func split(st *stateFile, roots map[string]string) map[string]*stateFile {
	parts := map[string]*stateFile{}
	part := func(root string) *stateFile {
		for p, r := range roots {
			if r == root {
				if parts[p] == nil {
					parts[p] = newState()
				}
				return parts[p]
			}
		}
		return newState() // no file of its own: dropped
	}
	for r, m := range st.Machines {
		part(r).Machines[r] = m
	}
	for n, ss := range st.Schedules {
		part(ss.FSRoot).Schedules[n] = ss
	}
	storeRoot := map[string]string{}
	for k, js := range st.Jobs {
		part(js.FSRoot).Jobs[k] = js
		storeRoot[js.Store] = js.FSRoot
	}
	for k, v := range st.StoreIDs {
		part(cmp.Or(storeRoot[k], storeRoot[v])).StoreIDs[k] = v
	}
	return parts
}

func (st *stateFile) empty() bool {
	return len(st.Jobs) == 0 && len(st.Schedules) == 0 && len(st.StoreIDs) == 0
}

// rootOf is the canonical form of an FS root, or the cleaned one when it
// cannot be resolved.
func rootOf(fsRoot string) string {
	if c, err := canonicalPath(fsRoot); err == nil {
		return c
	}
	return filepath.Clean(fsRoot)
}
