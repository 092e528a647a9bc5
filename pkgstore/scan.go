package pkgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// ErrNoStore is wrapped by the error Open returns when the FS root or its
// package store cannot be used at all (missing, not a directory,
// unreadable). Open's error also wraps the file system's own, so that a
// caller tells the three apart: fs.ErrNotExist (not mounted yet, not
// installed), syscall.ENOTDIR, fs.ErrPermission.
var ErrNoStore = errors.New("no usable package store")

// InstallTempPrefix is the prefix of the directories Habitat unpacks into
// before renaming them into place. Habitat's listing skips them.
const InstallTempPrefix = ".hab-pkg-install"

// DebrisPrefix starts the names of the directories hab-gc hides releases
// under while removing them. It extends InstallTempPrefix, so Habitat's
// listing skips them.
const DebrisPrefix = InstallTempPrefix + "-hab-gc-"

// StoreDir is the package store's path under the FS root.
const StoreDir = "hab/pkgs"

// Options tune a scan. The zero value scans for this machine's target with
// one worker per CPU and no sizes.
type Options struct {
	// Target is the package target releases must have to count as
	// installed. Default: DefaultTarget().
	Target string
	// Sizes asks for each release's size on disk (a walk of every release;
	// costly on large stores).
	Sizes bool
	// MeasureBeyond, when positive, asks for the size of each release
	// that is not among the newest MeasureBeyond of its package: those a
	// keep-latest policy may remove. They are measured while the scan has
	// their directory open, at a fraction of what measuring them
	// afterwards costs (Store.MeasureSizes); a release the scan could not
	// measure so keeps Size -1.
	MeasureBeyond int
	// Workers is how many origin/name directories are read at once.
	// Default (0): DefaultWorkers(). Negative: refused (Validate).
	Workers int
	// BinlinkDirs are the directories to read binlinks from, relative to
	// the FS root (absolute paths are taken under the FS root too).
	// Default (nil or empty): DefaultBinlinkDirs(); a binlink keeps the
	// release it points into, so there is no "none".
	BinlinkDirs []string
	// Now is the time used to report the age of leftover install
	// directories and to tell an install in progress (see
	// InstallWindow); zero leaves ages out, and every install directory
	// then counts as active.
	Now time.Time
	// InstallWindow: an install directory with anything in it changed
	// (modified, or its inode changed) within this time before Now, and
	// an archive that came into the artifact cache within it, count as an
	// install in progress (Installing.Active). Default
	// DefaultInstallWindow.
	InstallWindow time.Duration
	// Progress, when set, is called from scan goroutines (one call at a
	// time) with the number of release directories read so far.
	Progress func(scanned int)
	// OnPhase, when set, is told of the scan's progress (PhaseScan): once
	// at the start (Total 0), once the origin/name directories are listed
	// (Done 0, Total their number), then after each is read (Done of
	// Total). Called from scan goroutines, one call at a time.
	OnPhase func(PhaseEvent)
	// Logger receives the same events (see ReportPhase). Default: none.
	Logger *slog.Logger

	// streamLimit and streamIdentBytes, when positive, replace
	// DepsStreamLimit and DepsStreamIdentBytes (tests).
	streamLimit      int64
	streamIdentBytes int

	// slowPath makes the scan read every release through os.Root
	// (scanNameSlow), as where safeio.DirFD is missing; tests compare
	// the two paths.
	slowPath bool
}

// ErrInvalidOptions is wrapped by Options.Validate's errors (and so by
// Scan's, which then reads nothing).
var ErrInvalidOptions = errors.New("invalid scan options")

// Validate refuses negative values: no field of Options has a named
// "none" below zero (docs/library.md, "Zero and negative values"). Scan
// calls it.
func (o Options) Validate() error {
	switch {
	case o.MeasureBeyond < 0:
		return fmt.Errorf("%w: measure-beyond %d is negative (0 measures none by count)", ErrInvalidOptions, o.MeasureBeyond)
	case o.Workers < 0:
		return fmt.Errorf("%w: workers %d is negative (0 is DefaultWorkers)", ErrInvalidOptions, o.Workers)
	case o.InstallWindow < 0:
		return fmt.Errorf("%w: install window %s is negative (0 is DefaultInstallWindow)", ErrInvalidOptions, o.InstallWindow)
	}
	return nil
}

// DefaultWorkers is how many directories a scan reads at once by default:
// four per CPU the Go runtime uses (GOMAXPROCS). A reader blocked in a
// system call (a directory or file not in the page cache) leaves its CPU
// to another, so more readers than CPUs keep both the CPUs and the disk
// busy.
func DefaultWorkers() int { return 4 * runtime.GOMAXPROCS(0) }

// DefaultBinlinkDirs returns where `hab pkg binlink` puts links: bin and
// usr/local/bin (Linux and macOS defaults), and hab/bin. Add
// HAB_BINLINK_DIR when it is set.
func DefaultBinlinkDirs() []string { return []string{"bin", "usr/local/bin", "hab/bin"} }

// Store is an opened FS root with a package store under it. All reads of
// the store go through an os.Root opened at FSROOT/hab/pkgs, so nothing
// read can escape it.
type Store struct {
	fsRoot string
	pkgs   *os.Root
	lock   heldLock // the exclusive lock, while Lock's holder has it
}

// RequireFSRoot returns an error wrapping ErrNoStore for an empty FS
// root. The rule is the same in every package that takes one (pkgstore,
// lease, history, artifactcache, runroots): the FS root is named, "/" for
// the machine's own store; an empty one is an error, never the machine's
// store nor the working directory, so that an unset variable in a test or
// a program never reaches the real store.
func RequireFSRoot(fsRoot string) error {
	if fsRoot == "" {
		return fmt.Errorf("%w: the FS root is empty (name it: \"/\" for this machine's store)", ErrNoStore)
	}
	return nil
}

// Open opens the store under fsRoot (Habitat's FS_ROOT; "/" on a normal
// machine). It fails, wrapping ErrNoStore, when fsRoot is empty
// (RequireFSRoot), or fsRoot or fsRoot/hab/pkgs is missing, not a
// directory or unreadable; the error then also wraps the cause
// (fs.ErrNotExist, syscall.ENOTDIR, fs.ErrPermission).
func Open(fsRoot string) (*Store, error) {
	if err := supported(); err != nil {
		return nil, err
	}
	if err := RequireFSRoot(fsRoot); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(fsRoot)
	if err != nil {
		return nil, fmt.Errorf("%w: FS root %q: %w", ErrNoStore, fsRoot, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%w: FS root %s: %w", ErrNoStore, abs, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%w: FS root %s is %w", ErrNoStore, abs, syscall.ENOTDIR) // "... is not a directory"
	}
	storePath := filepath.Join(abs, StoreDir)
	pkgs, err := safeio.OpenRoot(storePath)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNoStore, storePath, err)
	}
	if f, err := pkgs.Open("."); err != nil {
		pkgs.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrNoStore, storePath, err)
	} else {
		_, err := f.ReadDir(1)
		f.Close()
		if err != nil && !errors.Is(err, io.EOF) {
			pkgs.Close()
			return nil, fmt.Errorf("%w: %s is unreadable: %w", ErrNoStore, storePath, err)
		}
	}
	return &Store{fsRoot: abs, pkgs: pkgs}, nil
}

// Close releases the store's directory handle.
func (s *Store) Close() error { return s.pkgs.Close() }

// FSRoot returns the absolute FS root.
func (s *Store) FSRoot() string { return s.fsRoot }

// Path returns the absolute path of the package store (FSROOT/hab/pkgs).
func (s *Store) Path() string { return filepath.Join(s.fsRoot, StoreDir) }

// Usable returns nil for a Store Open made, else (nil, the zero Store, a
// closed one's fields never set) an error wrapping ErrNoStore: what
// takes a *Store refuses one it cannot use instead of panicking.
func (s *Store) Usable() error {
	if s == nil || s.pkgs == nil {
		return fmt.Errorf("%w: no store given (open one with pkgstore.Open)", ErrNoStore)
	}
	if _, err := s.pkgs.Lstat("."); errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("%w: the store of %s is closed", ErrNoStore, s.fsRoot)
	}
	return nil
}

// Root returns the os.Root opened at the package store. It stays owned by
// the Store.
func (s *Store) Root() *os.Root { return s.pkgs }

// Scan reads the whole store: releases (in parallel), loaded services and
// binlinks. Damage is reported as Problems in the Inventory; the error is
// non-nil only when ctx ends or the top of the store cannot be read.
func (s *Store) Scan(ctx context.Context, opts Options) (*Inventory, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return s.scan(ctx, &scanner{store: s, opts: opts, in: newInterner()})
}

// withDefaults checks the options (Validate) and the target, and fills in
// the defaults of those left zero.
func (opts Options) withDefaults() (Options, error) {
	if err := opts.Validate(); err != nil {
		return opts, err
	}
	if opts.Target == "" {
		opts.Target = DefaultTarget()
	}
	if err := checkTarget(opts.Target); err != nil {
		return opts, err
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers()
	}
	if len(opts.BinlinkDirs) == 0 {
		opts.BinlinkDirs = DefaultBinlinkDirs()
	}
	if opts.InstallWindow == 0 {
		opts.InstallWindow = DefaultInstallWindow
	}
	return opts, nil
}

// scan reads the store with sc (Scan's, or Rescan's with what it may
// take again from a previous inventory) and returns the inventory.
func (s *Store) scan(ctx context.Context, sc *scanner) (*Inventory, error) {
	opts := sc.opts
	sc.phase(0, 0)
	err := sc.walk(ctx)
	if err != nil {
		return nil, err
	}
	inv := sc.inventory()
	if inv.Store, err = s.ID(); err != nil {
		return nil, err
	}
	inv.Installing, inv.Debris, inv.Opaque = sc.installing, sc.debris, sc.opaques
	slices.SortFunc(inv.Opaque, func(a, b Opaque) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(inv.Installing, func(a, b Installing) int { return strings.Compare(a.Path, b.Path) })
	s.readFetched(inv, sc)
	slices.Sort(inv.Debris)
	inv.BinlinkDirs, inv.InstallWindow = opts.BinlinkDirs, opts.InstallWindow
	s.readMounts(inv, &sc.problems)
	s.readSpecs(inv, &sc.problems)
	s.readBinlinks(inv, opts.BinlinkDirs, &sc.problems)
	if len(inv.Releases) == 0 && len(sc.problems.foreign) > 0 {
		sc.problems.add(targetNotInstalled(opts.Target, sc.problems.foreign))
	}
	inv.Problems = sortProblems(sc.problems.list)
	return inv, nil
}

// HasUninstallHook reports whether a release ships hooks/uninstall. When
// that cannot be told (an error other than "not there"), it answers true:
// the caller then keeps the release.
func (s *Store) HasUninstallHook(id Ident) bool {
	_, err := s.pkgs.Lstat(id.String() + "/hooks/uninstall")
	return !errors.Is(err, fs.ErrNotExist)
}

// Size returns the bytes on disk of a release directory: the space
// allocated to everything in it on its own file system, hard links once,
// never following a symlink nor entering a mount point (what cannot be
// read is left out); -1 when it cannot be opened.
func (s *Store) Size(id Ident) int64 {
	r, err := s.pkgs.OpenRoot(safeio.Dir(id.String()))
	if err != nil {
		return -1
	}
	defer r.Close()
	return treeSize(r)
}

// Scan opens the store under fsRoot, scans it and closes it.
func Scan(ctx context.Context, fsRoot string, opts Options) (*Inventory, error) {
	s, err := Open(fsRoot)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Scan(ctx, opts)
}

type problems struct {
	mu   sync.Mutex
	list []Problem
	// foreign counts the releases of other targets, by target.
	foreign map[string]int
}

func (p *problems) addForeign(target string) {
	p.mu.Lock()
	if p.foreign == nil {
		p.foreign = map[string]int{}
	}
	p.foreign[target]++
	p.mu.Unlock()
}

func (p *problems) add(pr Problem) {
	p.mu.Lock()
	p.list = append(p.list, pr)
	p.mu.Unlock()
}

func sortProblems(ps []Problem) []Problem {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return ps
}

// interner gives every distinct ident string one Ref. Lines of DEPS and
// TDEPS repeat massively across a store; each distinct line is parsed once.
type interner struct {
	mu     sync.Mutex
	index  map[string]Ref
	idents []Ident
	bad    map[string]error
}

func newInterner() *interner {
	return &interner{index: make(map[string]Ref, 1024), bad: map[string]error{}}
}

// refsLocked interns lines; bad lines are returned with their errors.
// badOut gets the line's number (from 1) in lines.
func (in *interner) refsLocked(lines [][]byte, out []Ref, badOut func(n int, line string, err error)) []Ref {
	for i, l := range lines {
		if r, ok := in.index[string(l)]; ok {
			out = append(out, r)
			continue
		}
		if err, ok := in.bad[string(l)]; ok {
			badOut(i+1, string(l), err)
			continue
		}
		line := string(l)
		id, err := ParseFullIdent(line)
		if err != nil {
			in.bad[line] = err
			badOut(i+1, line, err)
			continue
		}
		r := Ref(len(in.idents))
		in.idents = append(in.idents, id)
		in.index[line] = r
		out = append(out, r)
	}
	return out
}

func (in *interner) identLocked(id Ident) Ref {
	key := id.String()
	if r, ok := in.index[key]; ok {
		return r
	}
	r := Ref(len(in.idents))
	in.idents = append(in.idents, id)
	in.index[key] = r
	return r
}

type scanner struct {
	store    *Store
	opts     Options
	in       *interner
	problems problems

	mu         sync.Mutex
	parts      []namePart // what was read of todo[i]
	scanned    int
	names      int // origin/name directories read
	total      int // of those found
	installing []Installing
	opaques    []Opaque
	debris     []string

	// Rescan's: the previous inventory, the index of its parts by
	// ORIGIN/NAME, the directories changed since it was read, and the
	// idents its last full scan interned.
	prev     *Inventory
	prevAt   map[Ident]int
	changed  map[Ident]bool
	fullRefs int
}

// nameJob is a NAME directory to scan. odd, when set, says why a name on
// its path cannot be part of an ident.
type nameJob struct {
	origin, name, odd string
	i                 int // its index in the sorted list of names
}

// storePath gives a problem path relative to the FS root.
func storePath(parts ...string) string {
	var b strings.Builder
	b.WriteString(StoreDir)
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(quoteName(p))
	}
	return b.String()
}

// quoteName shows a name that is not valid UTF-8, or holds a control
// character (a newline, a tab: it would break or fake the line a problem
// is shown on), with Go escapes.
func quoteName(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func (sc *scanner) walk(ctx context.Context) error {
	origins, err := readDir(sc.store.pkgs, ".")
	if err != nil {
		return fmt.Errorf("%w: reading %s: %v", ErrNoStore, sc.store.Path(), err)
	}
	// The top two levels first, so that the total is known while the
	// releases are read.
	var todo []nameJob
	for _, o := range origins {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if o.Name() == LockFile && o.Type().IsRegular() {
			continue
		}
		ok, odd := sc.dirEntryOK(o.Type(), "origin", "", o.Name())
		if !ok {
			continue
		}
		names, err := readDir(sc.store.pkgs, o.Name())
		if err != nil {
			sc.unreadable(err, o.Name())
			continue
		}
		for _, n := range names {
			if ok, odd := sc.dirEntryOK(n.Type(), "name", odd, o.Name(), n.Name()); ok {
				todo = append(todo, nameJob{o.Name(), n.Name(), odd, len(todo)})
			}
		}
	}
	sc.total = len(todo)
	sc.parts = make([]namePart, len(todo))
	sc.phase(0, sc.total)
	jobs := make(chan nameJob, 64)
	var wg sync.WaitGroup
	for range sc.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker()
			for j := range jobs {
				if ctx.Err() != nil {
					continue
				}
				sc.scanJob(w, j)
			}
		}()
	}
	for _, j := range todo {
		if ctx.Err() != nil {
			break
		}
		if sc.reuse(j) {
			continue // read by the previous scan and unchanged since (Rescan)
		}
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	return ctx.Err()
}

// dirEntryOK reports whether a store entry is a directory to descend into
// (or, at the release level, to read), and records why not. Habitat lists
// what a directory holds whatever its name, so a name that cannot be part
// of an ident is still descended into: odd then says why (or carries the
// odd reason of a directory above), and every release Habitat would list
// below it becomes blocking damage (see scanRelease). A release name that
// is not UTF-8 is the exception: Habitat skips it.
func (sc *scanner) dirEntryOK(typ fs.FileMode, level, oddAbove string, parts ...string) (ok bool, odd string) {
	name := parts[len(parts)-1]
	path := storePath(parts...)
	switch {
	case typ&fs.ModeSymlink != 0:
		sc.problems.add(Problem{Path: path, Kind: ProblemSymlink, Blocking: true,
			Message: fmt.Sprintf("%s directory is a symlink; Habitat follows it, hab-gc never enters it, so what it holds is unknown", level)})
		return false, ""
	case !typ.IsDir():
		sc.problems.add(Problem{Path: path, Kind: ProblemNotDir,
			Message: fmt.Sprintf("a %s where %s directory belongs; Habitat skips it too", fileKind(typ), article(level))})
		return false, ""
	}
	why := checkPart(name)
	switch {
	case why == "":
		return true, oddAbove
	case level == "release" && !utf8.ValidString(name):
		sc.problems.add(Problem{Path: path, Kind: ProblemBadName,
			Message: "release directory name is not valid UTF-8; Habitat does not list such a release, nor does hab-gc"})
		return false, ""
	case level != "release":
		sc.problems.add(Problem{Path: path, Kind: ProblemBadName,
			Message: fmt.Sprintf("%s directory %s %s, so it cannot be part of a package ident; Habitat lists what it holds, so every release in it that Habitat would list blocks", level, strconv.Quote(name), why)})
	}
	if oddAbove != "" {
		return true, oddAbove
	}
	return true, fmt.Sprintf("its %s directory name %s %s", level, strconv.Quote(name), why)
}

func article(w string) string {
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

func fileKind(m fs.FileMode) string { return safeio.Kind(m) }

func (sc *scanner) unreadable(err error, parts ...string) {
	sc.problems.add(Problem{Path: storePath(parts...), Kind: ProblemUnreadable, Blocking: true,
		Message: fmt.Sprintf("cannot read directory, so the releases in it are unknown: %v", errMsg(err))})
}

// errMsg drops the path an *fs.PathError repeats; the Problem has it.
func errMsg(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func readDir(r *os.Root, name string) ([]fs.DirEntry, error) {
	f, err := r.Open(safeio.Dir(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	es, err := f.ReadDir(-1)
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return es, err
}

// worker is what one scan goroutine reuses from release to release.
type worker struct {
	dirents []byte            // getdents buffer
	entries []safeio.DirEntry // a directory's entries
	file    [2][]byte         // TARGET, IDENT and DEPS bodies; TDEPS's
	lines   [2][][]byte       // the lines of DEPS and TDEPS
	walk    []byte            // getdents buffer for measuring sizes
	top     safeio.Stat       // the release directory's
	stats   [4]safeio.Stat    // of metaFiles, where read is set
	read    [4]bool
	known   func(name string) *safeio.Stat
}

func newWorker() *worker {
	w := &worker{dirents: make([]byte, 8<<10), walk: make([]byte, 8<<10)}
	w.known = func(name string) *safeio.Stat {
		for i, f := range metaFiles {
			if f == name && w.read[i] {
				return &w.stats[i]
			}
		}
		return nil
	}
	return w
}

// entries lists d, sorted by name as Habitat's listing and readDir sort.
func (w *worker) list(d safeio.DirFD) ([]safeio.DirEntry, error) {
	es, err := d.Entries(w.dirents, w.entries[:0])
	w.entries = es
	slices.SortFunc(es, func(a, b safeio.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return es, err
}

// scanName reads the releases of one origin/name directory. The name
// directory is opened through the store's os.Root; below it, every open
// is of one component relative to an open directory, without following a
// symlink (safeio.DirFD). A release whose reading meets anything unusual
// is read again the slower way, through an os.Root (scanReleaseSlow),
// which says what it found.
func (sc *scanner) scanName(w *worker, j nameJob) (found []*Release, n int) {
	origin, name, odd := j.origin, j.name, j.odd
	nf, err := sc.store.pkgs.OpenFile(safeio.Dir(origin+"/"+name), os.O_RDONLY|oDirectory|syscall.O_NONBLOCK, 0)
	if err != nil {
		sc.unreadable(err, origin, name)
		return
	}
	defer nf.Close()
	nd, err := safeio.DirFDOf(nf)
	if err != nil || sc.opts.slowPath {
		if err == nil {
			nd.Close()
		}
		return sc.scanNameSlow(j)
	}
	defer nd.Close()
	versions, err := w.list(nd)
	if err != nil {
		sc.unreadable(err, origin, name)
		return
	}
	versions = slices.Clone(versions) // w.entries is reused below
	// Newest first, as Compare orders releases, so that the releases
	// beyond the newest MeasureBeyond are known as they are read.
	slices.SortFunc(versions, func(a, b safeio.DirEntry) int {
		if c := CompareVersions(b.Name, a.Name); c != 0 {
			return c
		}
		return strings.Compare(b.Name, a.Name)
	})
	for _, v := range versions {
		ok, odd := sc.dirEntryOK(v.Type, "version", odd, origin, name, v.Name)
		if !ok {
			continue
		}
		vd, err := nd.OpenDir(v.Name)
		if err != nil {
			sc.unreadable(err, origin, name, v.Name)
			continue
		}
		rels, err := w.list(vd)
		if err != nil {
			sc.unreadable(err, origin, name, v.Name)
			vd.Close()
			continue
		}
		// vroot is opened only when a release needs the slow path.
		var vroot *os.Root
		openVroot := func() (*os.Root, error) {
			if vroot == nil {
				r, err := sc.store.pkgs.OpenRoot(safeio.Dir(origin + "/" + name + "/" + v.Name))
				if err != nil {
					return nil, err
				}
				vroot = r
			}
			return vroot, nil
		}
		slices.Reverse(rels)
		for _, r := range rels {
			if strings.HasPrefix(r.Name, InstallTempPrefix) {
				if vr, err := openVroot(); err != nil {
					sc.unreadable(err, origin, name, v.Name)
				} else {
					sc.leftover(vr, origin, name, v.Name, r.Name)
				}
				continue
			}
			ok, odd := sc.dirEntryOK(r.Type, "release", odd, origin, name, v.Name, r.Name)
			if !ok {
				continue
			}
			n++
			id := Ident{origin, name, v.Name, r.Name}
			rel, fast := (*Release)(nil), false
			if odd == "" {
				measure := sc.opts.MeasureBeyond > 0 && len(found) >= sc.opts.MeasureBeyond
				rel, fast = sc.scanReleaseFast(w, vd, id, measure)
			}
			if !fast {
				vr, err := openVroot()
				if err != nil {
					sc.unreadable(err, origin, name, v.Name)
					continue
				}
				rel = sc.scanReleaseSlow(vr, id, odd)
			}
			if rel != nil {
				found = append(found, rel)
			}
		}
		if vroot != nil {
			vroot.Close()
		}
		vd.Close()
	}
	return found, n
}

// scanNameSlow reads the releases of one origin/name directory through
// os.Root alone (where safeio.DirFD is not available).
func (sc *scanner) scanNameSlow(j nameJob) (found []*Release, n int) {
	origin, name, odd := j.origin, j.name, j.odd
	nroot, err := sc.store.pkgs.OpenRoot(safeio.Dir(origin + "/" + name))
	if err != nil {
		sc.unreadable(err, origin, name)
		return
	}
	defer nroot.Close()
	versions, err := readDir(nroot, ".")
	if err != nil {
		sc.unreadable(err, origin, name)
		return
	}
	for _, v := range versions {
		ok, odd := sc.dirEntryOK(v.Type(), "version", odd, origin, name, v.Name())
		if !ok {
			continue
		}
		vroot, err := nroot.OpenRoot(safeio.Dir(v.Name()))
		if err != nil {
			sc.unreadable(err, origin, name, v.Name())
			continue
		}
		rels, err := readDir(vroot, ".")
		if err != nil {
			sc.unreadable(err, origin, name, v.Name())
			vroot.Close()
			continue
		}
		for _, r := range rels {
			if strings.HasPrefix(r.Name(), InstallTempPrefix) {
				sc.leftover(vroot, origin, name, v.Name(), r.Name())
				continue
			}
			ok, odd := sc.dirEntryOK(r.Type(), "release", odd, origin, name, v.Name(), r.Name())
			if !ok {
				continue
			}
			n++
			if rel := sc.scanReleaseSlow(vroot, Ident{origin, name, v.Name(), r.Name()}, odd); rel != nil {
				found = append(found, rel)
			}
		}
		vroot.Close()
	}
	return found, n
}

// found records what was read of the i-th origin/name directory and
// reports progress.
func (sc *scanner) found(i int, part namePart) {
	sc.mu.Lock()
	sc.parts[i] = part
	sc.scanned += part.n
	sc.names++
	if sc.opts.Progress != nil {
		sc.opts.Progress(sc.scanned)
	}
	sc.phase(sc.names, sc.total)
	sc.mu.Unlock()
}

// phase reports the scan's progress (see Options.OnPhase).
func (sc *scanner) phase(done, total int) {
	ReportPhase(sc.opts.OnPhase, sc.opts.Logger, PhaseEvent{Phase: PhaseScan, Done: done, Total: total})
}

// depIdents returns the valid idents the lines of DEPS and TDEPS under r
// name, each once (path is r's, relative to the FS root; a file over the
// read limit is read line by line), and whether what they name is unknown
// (as Release.DepsUnknown). What cannot be read is recorded as a blocking
// problem.
func (sc *scanner) depIdents(r *os.Root, path string) (ids []Ident, unknown bool) {
	var named [2]int
	var failed [2]bool
	seen := map[Ident]bool{}
	for i, file := range [2]string{"DEPS", "TDEPS"} {
		l, ok := sc.readDeps(r, path+"/"+file, file, "")
		if !ok {
			failed[i] = true
			continue
		}
		for _, line := range l.lines {
			if id, err := ParseFullIdent(string(line)); err == nil {
				named[i]++
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
	}
	return ids, (failed[0] && named[1] == 0) || (failed[1] && named[0] == 0)
}

// readMeta reads a metadata file as Habitat does (whole file, trimmed),
// up to safeio.Limit bytes: a larger file is an error wrapping
// safeio.ErrTooLarge, found without reading it. exists is false when the
// file is absent. Only regular files are read, opened without blocking, so
// a FIFO planted in a release cannot hang the scan.
func readMeta(r *os.Root, name string) (body []byte, exists bool, err error) {
	b, err := safeio.ReadFileAt(r, name, safeio.Limit, safeio.FollowLinks)
	if errors.Is(err, fs.ErrNotExist) {
		// A symlink to nothing is not an absent file: what it would
		// say is unknown.
		if fi, lerr := r.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := r.Readlink(name)
			return nil, true, fmt.Errorf("a symlink to %s, which does not exist", quoteName(target))
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return bytes.TrimSpace(b), true, nil
}

// tooLarge describes a file over the read limit, or returns "" for any
// other error.
func tooLarge(err error) string {
	var tl *safeio.TooLargeError
	if !errors.As(err, &tl) {
		return ""
	}
	return fmt.Sprintf("%d bytes, more than the %d bytes hab-gc reads of a metadata or spec file (not read)", tl.Size, tl.Limit)
}

// quotePrefix quotes s for a message, at most its first 80 bytes.
func quotePrefix(s string) string {
	const max = 80
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:max]), len(s))
}

// scanReleaseSlow reads a release directory through an os.Root. It returns nil when Habitat
// would not list it (recorded as a non-blocking problem that says why), or
// when hab-gc cannot read it as a release although Habitat lists it or may
// list it: a name that cannot be part of an ident (odd says why), or a
// TARGET hab-gc cannot read. Such a directory is blocking damage, and what
// its readable DEPS and TDEPS lines name is recorded in Inventory.Opaque.
func (sc *scanner) scanReleaseSlow(vroot *os.Root, id Ident, odd string) *Release {
	path := storePath(id.Origin, id.Name, id.Version, id.Release)
	rroot, err := vroot.OpenRoot(safeio.Dir(id.Release))
	if err != nil {
		sc.problems.add(Problem{Path: path, Kind: ProblemUnreadable, Blocking: true,
			Message: fmt.Sprintf("cannot open release directory, so whether it is installed is unknown: %v", errMsg(err))})
		return nil
	}
	defer rroot.Close()

	listed, unsure := sc.readTarget(rroot, path)
	switch {
	case unsure != "":
		sc.problems.add(Problem{Path: path + "/TARGET", Kind: ProblemTarget, Blocking: true,
			Message: unsure + "; what its DEPS and TDEPS name is kept"})
		sc.opaque(rroot, path)
		return nil
	case !listed:
		return nil
	case odd != "":
		sc.problems.add(Problem{Path: path, Kind: ProblemBadName, Blocking: true,
			Message: "Habitat lists this installed release, but " + odd + ", so hab-gc cannot take it as a package ident; what its DEPS and TDEPS name is kept"})
		sc.opaque(rroot, path)
		return nil
	}

	rel := &Release{Ident: id, Size: -1}
	if fi, err := rroot.Stat("."); err == nil {
		rel.ModTime, rel.ChangeTime = fi.ModTime(), fileinfo.ChangeTime(fi)
		rel.Dev, rel.Ino = DirID(rroot, ".", fi)
	}
	fq := id.String()

	identBody, exists, err := readMeta(rroot, "IDENT")
	switch {
	case tooLarge(err) != "":
		sc.problems.add(Problem{Path: path + "/IDENT", Kind: ProblemIdent, Release: fq, Blocking: true,
			Message: tooLarge(err)})
	case err != nil:
		sc.problems.add(Problem{Path: path + "/IDENT", Kind: ProblemIdent, Release: fq,
			Message: fmt.Sprintf("unreadable: %s", errMsg(err))})
	case !exists:
		sc.problems.add(Problem{Path: path + "/IDENT", Kind: ProblemIdent, Release: fq, Message: "missing"})
	case string(identBody) != fq:
		sc.problems.add(Problem{Path: path + "/IDENT", Kind: ProblemIdent, Release: fq,
			Message: fmt.Sprintf("says %s but the path says %q", quotePrefix(string(identBody)), fq)})
	}

	var lines [2][][]byte
	var unknown [2]bool
	for i, file := range [2]string{"DEPS", "TDEPS"} {
		l, ok := sc.readDeps(rroot, path+"/"+file, file, fq)
		if !ok {
			rel.Damaged, unknown[i] = true, true
			continue
		}
		if l.streamed {
			rel.Damaged = true
		}
		lines[i] = l.lines
	}
	if bad := sc.intern(rel, lines, path, fq); len(bad) > 0 {
		rel.Damaged = true
		for _, p := range bad {
			sc.problems.add(p)
		}
	}
	// TDEPS names all a release needs, DEPS what it needs directly (the
	// rest through what those need): when one cannot be read and the
	// other names nothing, what the release needs is unknown.
	rel.DepsUnknown = (unknown[0] && len(rel.TDeps) == 0) || (unknown[1] && len(rel.Deps) == 0)

	if sc.opts.Sizes {
		rel.Size = treeSize(rroot)
	}
	return rel
}

// depsLines are what could be read of a DEPS or TDEPS file: its lines
// (nil for an empty or absent file), and whether it was over the read
// limit and read line by line (lines are then its distinct valid idents).
type depsLines struct {
	lines    [][]byte
	streamed bool
}

// readDeps reads a DEPS or TDEPS file of a release (path is relative to
// the FS root, fq the release's ident or "" for an Opaque): whole when
// within the read limit, line by line (streamDeps) beyond it. ok is false,
// with a blocking problem recorded, when what it names cannot be read at
// all: not a regular file, unreadable, or beyond what is streamed.
func (sc *scanner) readDeps(rroot *os.Root, path, file, fq string) (l depsLines, ok bool) {
	body, _, err := readMeta(rroot, file)
	if tooLarge(err) != "" {
		st, serr := streamDeps(rroot, file, sc.opts.streamLimit, sc.opts.streamIdentBytes)
		if serr == nil {
			sc.problems.add(st.problem(path, fq))
			return depsLines{lines: st.lines, streamed: true}, true
		}
		err = serr
	}
	if err != nil {
		msg := fmt.Sprintf("unreadable, so what this release needs is unknown: %s", errMsg(err))
		if errors.Is(err, errStreamCap) {
			msg = fmt.Sprintf("%s, so what this release needs is unknown", errMsg(err))
		}
		sc.problems.add(Problem{Path: path, Kind: ProblemDeps, Release: fq, Blocking: true, Message: msg})
		return depsLines{}, false
	}
	if len(body) > 0 {
		l.lines = bytes.Split(body, []byte{'\n'})
		for j, line := range l.lines {
			l.lines[j] = bytes.TrimSuffix(line, []byte{'\r'})
		}
	}
	return l, true
}

// intern gives rel its Ref and the Refs of its DEPS and TDEPS lines;
// lines that are not valid idents come back as blocking problems.
func (sc *scanner) intern(rel *Release, lines [2][][]byte, path, fq string) (bad []Problem) {
	sc.in.mu.Lock()
	defer sc.in.mu.Unlock()
	rel.Ref = sc.in.identLocked(rel.Ident)
	for i, file := range [2]string{"DEPS", "TDEPS"} {
		if lines[i] == nil {
			continue
		}
		refs := sc.in.refsLocked(lines[i], make([]Ref, 0, len(lines[i])), func(n int, line string, err error) {
			msg := fmt.Sprintf("line %d: %v", n, err)
			if len(line) > 80 { // the error would quote it whole
				msg = fmt.Sprintf("line %d: %s: not a valid package ident", n, quotePrefix(line))
			}
			bad = append(bad, Problem{Path: path + "/" + file, Kind: ProblemDeps, Release: fq, Blocking: true, Message: msg})
		})
		if i == 0 {
			rel.Deps = refs
		} else {
			rel.TDeps = refs
		}
	}
	return bad
}

// splitLines splits a trimmed metadata body into lines without their
// trailing \r, reusing out; an empty body has no lines (nil).
func splitLines(body []byte, out [][]byte) [][]byte {
	if len(body) == 0 {
		return nil
	}
	out = out[:0]
	for len(body) > 0 {
		l := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			l, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		out = append(out, bytes.TrimSuffix(l, []byte{'\r'}))
	}
	return out
}

// metaFiles are the files scanReleaseFast reads, in order.
var metaFiles = [4]string{"TARGET", "IDENT", "DEPS", "TDEPS"}

// scanReleaseFast reads a release the common way: a directory holding a
// regular TARGET for the scan's target, an IDENT that matches its path,
// and DEPS and TDEPS (each regular or absent) of valid idents. Every
// name is opened relative to the release's descriptor without following
// a symlink and read through safeio.DirFD, which checks on the
// descriptor that it is a regular file and caps the read. fast is false,
// with nothing recorded, when anything else is met (a problem to report,
// a symlink, an error): the caller then reads the release with
// scanReleaseSlow, which says what is wrong.
//
// With measure (or Options.Sizes), the release's size is measured while
// its directory is open, the files just read not examined again.
func (sc *scanner) scanReleaseFast(w *worker, vd safeio.DirFD, id Ident, measure bool) (rel *Release, fast bool) {
	rd, err := vd.OpenDir(id.Release)
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	if rd.Stat(&w.top) != nil {
		return nil, false
	}
	w.read = [4]bool{}
	fq := id.String()
	var lines [2][][]byte
	for i, file := range metaFiles {
		buf := &w.file[max(i-2, 0)]
		body, err := rd.ReadFile(file, safeio.Limit, *buf, &w.stats[i])
		if i >= 2 && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false
		}
		*buf, w.read[i] = body, true
		body = bytes.TrimSpace(body)
		switch file {
		case "TARGET":
			if string(body) != sc.opts.Target { // checkTarget made it valid
				return nil, false
			}
		case "IDENT":
			if string(body) != fq {
				return nil, false
			}
		default:
			w.lines[i-2] = splitLines(body, w.lines[i-2])
			lines[i-2] = w.lines[i-2]
		}
	}
	rel = &Release{Ident: id, Size: -1}
	rel.ModTime, rel.ChangeTime, rel.Dev, rel.Ino = safeio.StatTimes(&w.top)
	if bad := sc.intern(rel, lines, "", fq); len(bad) > 0 {
		return nil, false
	}
	if measure || sc.opts.Sizes {
		if u, err := onefs.MeasureOpen(rd.Fd(), &w.top, w.known, w.walk); err == nil || u.Bytes > 0 {
			rel.Size = u.Bytes
		} else if sc.opts.Sizes {
			rel.Size = measureAt(vd, id.Release, w.walk)
		}
	}
	return rel, true
}

// readTarget reads TARGET as Habitat's listing does and reports whether
// Habitat lists the release for the scan's target. Where hab-gc cannot
// tell, unsure says why. A release Habitat does not list is recorded as a
// non-blocking problem saying why.
func (sc *scanner) readTarget(rroot *os.Root, path string) (listed bool, unsure string) {
	skip := func(kind ProblemKind, msg string) (bool, string) {
		sc.problems.add(Problem{Path: path + "/TARGET", Kind: kind, Message: msg})
		return false, ""
	}
	fi, err := rroot.Lstat("TARGET")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return skip(ProblemTarget, "missing; Habitat does not list this release, nor does hab-gc")
	case err != nil:
		return false, fmt.Sprintf("cannot be examined (%s), so whether Habitat lists this release is unknown", errMsg(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, "a symlink: Habitat follows it and may list this release, but hab-gc never follows a symlink to read TARGET, so whether it is installed is unknown"
	case fi.IsDir():
		return skip(ProblemTarget, "a directory, which Habitat cannot read as a target; Habitat does not list this release, nor does hab-gc")
	case fi.Mode()&fs.ModeNamedPipe != 0:
		return skip(ProblemTarget, "a FIFO: Habitat's listing would wait forever opening it and never list this release; nor does hab-gc")
	case fi.Mode()&fs.ModeSocket != 0:
		return skip(ProblemTarget, "a socket, which Habitat cannot open; Habitat does not list this release, nor does hab-gc")
	case !fi.Mode().IsRegular():
		return false, fmt.Sprintf("a %s, not a regular file, so whether Habitat lists this release is unknown", fileKind(fi.Mode()))
	}
	target, _, err := readMeta(rroot, "TARGET")
	switch {
	case tooLarge(err) != "":
		return false, tooLarge(err) + ", so whether Habitat lists this release is unknown"
	case err != nil:
		return false, fmt.Sprintf("unreadable by hab-gc (%s); Habitat, run by another user, may read it and list this release, so whether it is installed is unknown", errMsg(err))
	case !ValidTarget(string(target)):
		return skip(ProblemTarget, fmt.Sprintf("%s is not a package target; Habitat does not list this release, nor does hab-gc", quotePrefix(string(target))))
	case string(target) != sc.opts.Target:
		sc.problems.addForeign(string(target))
		return skip(ProblemForeignTarget, fmt.Sprintf("release is for %s, not %s; not installed for this target, left alone", target, sc.opts.Target))
	}
	return true, ""
}

// opaque records a directory Habitat lists (or may list) as an installed
// release that hab-gc cannot read as one, with what its readable DEPS and
// TDEPS lines name.
func (sc *scanner) opaque(rroot *os.Root, path string) {
	o := Opaque{Path: strings.TrimPrefix(path, StoreDir+"/")}
	o.Deps, o.DepsUnknown = sc.depIdents(rroot, path)
	sc.mu.Lock()
	sc.opaques = append(sc.opaques, o)
	sc.mu.Unlock()
}

// treeSize sums the space allocated to everything under r on r's own
// mount, hard links once, never following a symlink nor entering a mount
// point, in time linear in the tree (onefs.Walk). What cannot be read is
// left out.
func treeSize(r *os.Root) int64 {
	f, err := r.Open(".")
	if err != nil {
		return -1
	}
	defer f.Close()
	u, err := onefs.Walk(f, true)
	if err != nil && u.Bytes == 0 {
		return -1
	}
	return u.Bytes
}

func (sc *scanner) inventory() *Inventory {
	// Names were listed in order and each one's releases sorted, so
	// their concatenation is sorted (finishInventory checks).
	n := 0
	for _, p := range sc.parts {
		n += len(p.releases)
		sc.problems.list = append(sc.problems.list, p.problems...)
		for t, c := range p.foreign {
			if sc.problems.foreign == nil {
				sc.problems.foreign = map[string]int{}
			}
			sc.problems.foreign[t] += c
		}
		sc.installing = append(sc.installing, p.installing...)
		sc.opaques = append(sc.opaques, p.opaques...)
		sc.debris = append(sc.debris, p.debris...)
	}
	var all []*Release
	if n > 0 {
		all = make([]*Release, 0, n)
	}
	for i := range sc.parts {
		p := &sc.parts[i]
		p.lo = len(all)
		all = append(all, p.releases...)
		p.hi = len(all)
		p.releases = nil // inv.Releases[lo:hi] from now on
	}
	inv, resorted := finishInventory(sc.store.fsRoot, sc.opts.Target, sc.in, all, &sc.problems)
	if !resorted {
		// Each part's releases are where it says in inv.Releases: a
		// Rescan can take them again.
		inv.parts, inv.scanKey = make([]keptPart, len(sc.parts)), sc.opts.key()
		for i := range sc.parts {
			inv.parts[i] = sc.parts[i].kept()
		}
		inv.fullRefs = sc.fullRefs
		if inv.fullRefs == 0 {
			inv.fullRefs = len(sc.in.idents)
		}
	}
	return inv
}

// finishInventory sorts the releases, indexes them and reports
// dependencies that are not installed. resorted says whether they were
// not sorted already.
func finishInventory(fsRoot, target string, in *interner, releases []*Release, probs *problems) (inv *Inventory, resorted bool) {
	inv = &Inventory{
		FSRoot:   fsRoot,
		Target:   target,
		Releases: releases,
		sorted:   sortRefs(in.idents),
		byRef:    make([]*Release, len(in.idents)),
	}
	if cmp := func(a, b *Release) int { return Compare(a.Ident, b.Ident) }; !slices.IsSortedFunc(inv.Releases, cmp) {
		slices.SortFunc(inv.Releases, cmp)
		resorted = true
	}
	for _, r := range inv.Releases {
		inv.byRef[r.Ref] = r
	}
	for i, id := range in.idents {
		if inv.byRef[i] == nil {
			inv.absent = append(inv.absent, absentIdent{Ref(i), id})
		}
	}
	inv.folded = foldedReleases(inv.Releases) // Windows: fold.go
	foldDeps(inv)
	for _, r := range inv.Releases {
		for i, deps := range [2][]Ref{r.TDeps, r.Deps} {
			for _, d := range deps {
				if inv.byRef[d] != nil || (i == 1 && slices.Contains(r.TDeps, d)) {
					continue
				}
				probs.add(Problem{Path: storePath(r.Ident.Origin, r.Ident.Name, r.Ident.Version, r.Ident.Release),
					Kind: ProblemDepMissing, Release: r.Ident.String(),
					Message: fmt.Sprintf("depends on %s, which is not installed", inv.Ident(d))})
			}
		}
	}
	return inv, resorted
}
