package pkgstore

import (
	"context"
	"slices"
	"strings"
)

// namePart is what a scan read of one ORIGIN/NAME directory: its
// releases (inv.Releases[lo:hi] once the inventory is made), how many
// release directories it read, and what it found there besides.
type namePart struct {
	origin, name string
	lo, hi       int
	releases     []*Release // sorted; nil once in the inventory
	n            int
	problems     []Problem
	foreign      map[string]int
	installing   []Installing
	opaques      []Opaque
	debris       []string
}

// keptPart is what an inventory keeps of a namePart for a Rescan: where
// its releases are in inv.Releases, how many release directories it
// read, and whether it may be taken again.
type keptPart struct {
	origin, name string
	lo, hi, n    int32
	reusable     bool
}

// kept is what the inventory keeps of p.
func (p *namePart) kept() keptPart {
	return keptPart{origin: p.origin, name: p.name, lo: int32(p.lo), hi: int32(p.hi), n: int32(p.n), reusable: p.reusable()}
}

// reusable reports whether a Rescan may take the part again when its
// directory did not change: it holds releases and nothing else. A part
// with anything more is read again every time: an install directory (in
// progress or not is a matter of time, and its files are not watched),
// hab-gc's debris, a directory hab-gc cannot read as a release, or any
// problem at all (damage, a release of another target, an unreadable
// directory).
func (p *namePart) reusable() bool {
	return len(p.problems) == 0 && len(p.foreign) == 0 && len(p.installing) == 0 &&
		len(p.opaques) == 0 && len(p.debris) == 0
}

// scanKey are the options that change what a scan reads of an
// ORIGIN/NAME directory: a Rescan takes parts only from an inventory
// scanned with the same ones.
type scanKey struct {
	target           string
	sizes, slowPath  bool
	streamLimit      int64
	streamIdentBytes int
}

func (opts Options) key() scanKey {
	return scanKey{target: opts.Target, sizes: opts.Sizes, slowPath: opts.slowPath,
		streamLimit: opts.streamLimit, streamIdentBytes: opts.streamIdentBytes}
}

// scanJob reads one ORIGIN/NAME directory, recording what it finds in a
// part of its own, and hands the part to sc.
func (sc *scanner) scanJob(w *worker, j nameJob) {
	js := &scanner{store: sc.store, opts: sc.opts, in: sc.in}
	found, n := js.scanName(w, j)
	// scanName reads newest first: reversed, that is almost always
	// sorted already.
	slices.Reverse(found)
	if cmp := func(a, b *Release) int { return Compare(a.Ident, b.Ident) }; !slices.IsSortedFunc(found, cmp) {
		slices.SortFunc(found, cmp)
	}
	sc.found(j.i, namePart{origin: j.origin, name: j.name, releases: found, n: n,
		problems: js.problems.list, foreign: js.problems.foreign,
		installing: js.installing, opaques: js.opaques, debris: js.debris})
}

// reuse takes j's part from the previous inventory (Rescan) when it may:
// the directory is not among those changed since, its name is a valid
// ident part, and the part is reusable. The releases are the previous
// inventory's own (shared, not copied: a Size one sets is the other's,
// and a release directory never changes); their Refs stay valid, the
// interner being the old one's extended. Where names fold case
// (Windows), each is copied: folding a Rescan's dependencies changes
// them.
func (sc *scanner) reuse(j nameJob) bool {
	if sc.prev == nil || j.odd != "" || sc.changed[Ident{Origin: j.origin, Name: j.name}] {
		return false
	}
	p, ok := sc.prevPart(j.origin, j.name)
	if !ok || !p.reusable {
		return false
	}
	rels := sc.prev.Releases[p.lo:p.hi:p.hi]
	if caseInsensitive {
		// finishInventory's foldDeps changes the releases' Deps: a copy
		// of each.
		copies := make([]Release, len(rels))
		own := make([]*Release, len(rels))
		for k, r := range rels {
			copies[k] = *r
			own[k] = &copies[k]
		}
		rels = own
	}
	sc.found(j.i, namePart{origin: j.origin, name: j.name, releases: rels, n: int(p.n)})
	return true
}

// Rescan reads the store as Scan does, but takes again from prev, an
// inventory an earlier Scan or Rescan of this same store made, what it
// read of every ORIGIN/NAME directory not in changed (idents of which
// only Origin and Name count) and whose part held releases alone (no
// install directory, no debris, no problem of any kind: those are read
// again every time). Everything else is read afresh, as Scan reads it:
// the top two levels of the store (which origin and name directories
// there are), the directories in changed and those not in prev, the
// artifact cache, the mounts, the specs and the binlinks.
//
// The caller vouches for changed: every ORIGIN/NAME directory in which
// anything may have changed since prev was read (a release added,
// removed or replaced, a version directory made or removed, an install
// directory...). What is inside a release directory is taken as prev
// read it: Habitat renames a release into place complete and never
// changes it after. Package watch passes the directories inotify
// reported.
//
// It is a full Scan when prev is nil, was read from another store or
// with other options (target, sizes), or when its interned idents have
// grown to twice what the last full scan interned (the idents of
// releases removed since stay interned until a full scan).
//
// The result is a new inventory; prev is not changed. The releases it
// takes again are prev's own, shared (a release directory never
// changes): a caller must not change them, as a Size set on one is the
// other's (package retention's plans write sizes on copies).
func (s *Store) Rescan(ctx context.Context, prev *Inventory, changed []Ident, opts Options) (*Inventory, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if prev == nil || prev.parts == nil || prev.scanKey != opts.key() || opts.Sizes ||
		prev.FSRoot != s.fsRoot || prev.NumRefs() >= 2*max(prev.fullRefs, 1024) {
		return s.Scan(ctx, opts)
	}
	if id, err := s.ID(); err != nil || id != prev.Store {
		return s.Scan(ctx, opts)
	}
	sc := &scanner{store: s, opts: opts, in: extending(prev), prev: prev, fullRefs: prev.fullRefs,
		changed: map[Ident]bool{}}
	for _, c := range changed {
		sc.changed[Ident{Origin: c.Origin, Name: c.Name}] = true
	}
	return s.scan(ctx, sc)
}

// prevPart is the part of prev read of origin/name, if any (prev's parts
// are in the order their names were listed: sorted).
func (sc *scanner) prevPart(origin, name string) (*keptPart, bool) {
	parts := sc.prev.parts
	i, ok := slices.BinarySearchFunc(parts, [2]string{origin, name}, func(p keptPart, k [2]string) int {
		if c := strings.Compare(p.origin, k[0]); c != 0 {
			return c
		}
		return strings.Compare(p.name, k[1])
	})
	if !ok {
		return nil, false
	}
	return &parts[i], true
}
