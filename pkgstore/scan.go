package pkgstore

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// Scan reads the whole store. Damage is reported as Problems; the error is
// non-nil only when ctx ends or the top of the store cannot be read.
func (s *Store) Scan(ctx context.Context, opts Options) (*Inventory, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	sc := &scanner{store: s, opts: opts, in: newInterner()}
	sc.phase(0, 0)
	err = sc.walk(ctx)
	if err != nil {
		return nil, err
	}
	inv := sc.inventory()
	if inv.Store, err = s.ID(); err != nil {
		return nil, err
	}
	inv.Installing, inv.Debris, inv.Opaque = sc.installing, sc.debris, sc.opaques
	for _, h := range sc.hidden {
		if inv.Hidden == nil {
			inv.Hidden = map[Ident]string{}
		}
		inv.Hidden[h.id] = h.dir
	}
	slices.SortFunc(inv.Opaque, func(a, b Opaque) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(inv.Installing, func(a, b Installing) int { return strings.Compare(a.Path, b.Path) })
	s.readFetched(inv, sc)
	slices.Sort(inv.Debris)
	inv.BinlinkDirs, inv.InstallWindow = opts.BinlinkDirs, opts.InstallWindow
	s.readMounts(inv, &sc.problems)
	s.readSpecs(inv, &sc.problems)
	s.readBinlinks(inv, opts.BinlinkDirs, &sc.problems)
	s.readInstalledBy(inv, &sc.problems)
	if len(inv.Releases) == 0 && len(sc.problems.foreign) > 0 {
		sc.problems.add(targetNotInstalled(opts.Target, sc.problems.foreign))
	}
	inv.Problems = sortProblems(sc.problems.list)
	return inv, nil
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

type scanner struct {
	store    *Store
	opts     Options
	in       *interner
	problems problems

	mu         sync.Mutex
	parts      []namePart // what was read of each origin/name, in order
	names      int        // read
	total      int        // found
	installing []Installing
	opaques    []Opaque
	debris     []string
	hidden     []hiddenDir
}

type namePart struct {
	releases   []*Release // sorted
	problems   []Problem
	foreign    map[string]int
	installing []Installing
	opaques    []Opaque
	debris     []string
	hidden     []hiddenDir
}

// nameJob is a NAME directory to scan; odd says why a name on its path
// cannot be part of an ident.
type nameJob struct {
	origin, name, odd string
	i                 int
}

// listNames lists the origin/name directories to read, in order.
func (sc *scanner) listNames(ctx context.Context) ([]nameJob, error) {
	origins, err := listDir(sc.store.pkgs, ".")
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrNoStore, sc.store.Path(), err)
	}
	var todo []nameJob
	for _, o := range origins {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if o.Name == LockFile && o.Type.IsRegular() {
			continue
		}
		ok, odd := sc.dirEntryOK(o.Type, "origin", "", o.Name)
		if !ok {
			continue
		}
		names, err := listDir(sc.store.pkgs, o.Name)
		if err != nil {
			sc.unreadable(err, o.Name)
			continue
		}
		for _, n := range names {
			if ok, odd := sc.dirEntryOK(n.Type, "name", odd, o.Name, n.Name); ok {
				todo = append(todo, nameJob{o.Name, n.Name, odd, len(todo)})
			}
		}
	}
	return todo, nil
}

// walk reads each origin/name directory, Options.Workers at once.
func (sc *scanner) walk(ctx context.Context) error {
	todo, err := sc.listNames(ctx)
	if err != nil {
		return err
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
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	return ctx.Err()
}

// dirEntryOK reports whether a store entry is a directory to enter, and
// records why not. Habitat lists what a directory holds whatever its name,
// so one no ident allows is entered too, odd saying why: what Habitat
// lists below it is blocking damage. Habitat skips a release name that is
// not UTF-8.
func (sc *scanner) dirEntryOK(typ fs.FileMode, level, oddAbove string, parts ...string) (ok bool, odd string) {
	name := parts[len(parts)-1]
	path := func() string { return storePath(parts...) } // made only for a problem
	switch {
	case typ&fs.ModeSymlink != 0:
		sc.problems.add(Problem{Path: path(), Kind: ProblemSymlink, Blocking: true,
			Message: fmt.Sprintf("%s directory is a symlink; Habitat follows it, hab-gc never enters it, so what it holds is unknown", level)})
		return false, ""
	case !typ.IsDir():
		sc.problems.add(Problem{Path: path(), Kind: ProblemNotDir,
			Message: fmt.Sprintf("a %s where %s directory belongs; Habitat skips it too", fileKind(typ), article(level))})
		return false, ""
	}
	why := checkPart(name)
	switch {
	case why == "":
		return true, oddAbove
	case level == "release" && !utf8.ValidString(name):
		sc.problems.add(Problem{Path: path(), Kind: ProblemBadName,
			Message: "release directory name is not valid UTF-8; Habitat does not list such a release, nor does hab-gc"})
		return false, ""
	case level != "release":
		sc.problems.add(Problem{Path: path(), Kind: ProblemBadName,
			Message: fmt.Sprintf("%s directory %s %s, so it cannot be part of a package ident; Habitat lists what it holds, so every release in it that Habitat would list blocks", level, strconv.Quote(name), why)})
	}
	if oddAbove != "" {
		return true, oddAbove
	}
	return true, fmt.Sprintf("its %s directory name %s %s", level, strconv.Quote(name), why)
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

// scanJob reads one ORIGIN/NAME directory into a part of its own.
func (sc *scanner) scanJob(w *worker, j nameJob) {
	js := &scanner{store: sc.store, opts: sc.opts, in: sc.in}
	found := js.scanName(w, j)
	slices.Reverse(found) // newest first: reversed, almost always sorted
	if cmp := func(a, b *Release) int { return Compare(a.Ident, b.Ident) }; !slices.IsSortedFunc(found, cmp) {
		slices.SortFunc(found, cmp)
	}
	sc.found(j.i, namePart{releases: found,
		problems: js.problems.list, foreign: js.problems.foreign,
		installing: js.installing, opaques: js.opaques, debris: js.debris, hidden: js.hidden})
}

func (sc *scanner) found(i int, part namePart) {
	sc.mu.Lock()
	sc.parts[i] = part
	sc.names++
	sc.phase(sc.names, sc.total)
	sc.mu.Unlock()
}

func (sc *scanner) phase(done, total int) {
	ReportPhase(sc.opts.OnPhase, sc.opts.Logger, PhaseEvent{Phase: PhaseScan, Done: done, Total: total})
}

func (sc *scanner) inventory() *Inventory {
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
		sc.hidden = append(sc.hidden, p.hidden...)
	}
	var all []*Release
	if n > 0 {
		all = make([]*Release, 0, n)
	}
	for _, p := range sc.parts {
		all = append(all, p.releases...)
	}
	sc.parts = nil
	return finishInventory(sc.store.fsRoot, sc.opts.Target, sc.in, all, &sc.problems)
}

// finishInventory sorts and indexes the releases and reports dependencies
// that are not installed.
func finishInventory(fsRoot, target string, in *interner, releases []*Release, probs *problems) *Inventory {
	n := in.numRefs()
	inv := &Inventory{
		FSRoot:   fsRoot,
		Target:   target,
		Releases: releases,
		byRef:    make([]*Release, n),
	}
	inv.sorted = sortedRefs(n, in.ident)
	if cmp := func(a, b *Release) int { return Compare(a.Ident, b.Ident) }; !slices.IsSortedFunc(inv.Releases, cmp) {
		slices.SortFunc(inv.Releases, cmp)
	}
	for _, r := range inv.Releases {
		inv.byRef[r.Ref] = r
	}
	for i, rel := range inv.byRef {
		if rel == nil {
			inv.absent = append(inv.absent, absentIdent{Ref(i), in.ident(Ref(i))})
		}
	}
	inv.folded = foldedReleases(inv.Releases) // Windows: fold.go
	foldDeps(inv)
	// A bit a Ref stays in the processor's cache where byRef does not.
	installed := make([]uint64, (n+63)/64)
	for _, r := range inv.Releases {
		installed[r.Ref/64] |= 1 << (r.Ref % 64)
	}
	for _, r := range inv.Releases {
		for i, deps := range [2][]Ref{r.TDeps, r.Deps} {
			for _, d := range deps {
				if installed[d/64]&(1<<(d%64)) != 0 || (i == 1 && slices.Contains(r.TDeps, d)) {
					continue
				}
				inv.missing = append(inv.missing, missingDep{r, d})
				probs.add(Problem{Path: storePath(r.Ident.Origin, r.Ident.Name, r.Ident.Version, r.Ident.Release),
					Kind: ProblemDepMissing, Release: r.Ident.String(),
					Message: fmt.Sprintf("depends on %s, which is not installed", inv.Ident(d))})
			}
		}
	}
	return inv
}
