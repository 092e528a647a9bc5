package retention

import (
	"fmt"
	"slices"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// A scoped plan (PlanScope) decides only what a limited policy (Only,
// ServicesOnly) may remove: its scope's releases (S) and what they need,
// transitively (C, their closure with S). Every release outside C is
// kept by the whole plan (computeAt) too: a limited plan removes only
// releases of its scope it does not reach and the dependencies only
// those freed (applyScope), all in C. What decides a release of C is
// found by walking up from it (the releases that need it, Dependents),
// not by marking from every root of the store, so that a purge after one
// package's update costs what that package and its dependencies hold,
// not what the store holds (issue 35).
//
// It follows the whole plan's steps, each answered for the releases it
// is asked about:
//
//  1. reached0: a root (rootsOf, the whole plan's reasons for that
//     release) is the release or one that needs it, transitively.
//  2. The freed-dependency rule (freeDeps): the scope's releases not
//     reached0 are removed0; the count-only roots among what they need,
//     outside the scope, are dropped, unless an in-scope release reached0
//     is then no longer reached (reachedP): the count then stays. reachedF
//     is reached from the roots left.
//  3. Uninstall hooks: a package none of whose releases is reachedF keeps
//     its newest release shipping a hook (hookRoot); reached1 adds what
//     such a root reaches. A package with a root has none, which is
//     most often told without walking.
//  4. The scope (applyScope): a release of C\S not reached1 is always
//     needed by a release of S not reached1 (its removal would free it),
//     so it is freed (removed), or kept as no-deps asks (a root); every
//     release outside C not reached1 is kept as outside the scope (a
//     root), and so keeps what it needs. So a release of C that is no
//     root is kept exactly when a root of C, or any release outside C,
//     is above it; walking up from it stops at the first such release,
//     most often the first release that needs it. Only no-deps asks
//     whether a release of C\S is reached1, the one walk that may climb
//     far (to tell its reason: a dependency, or kept by no-deps).
//
// Every decision of C, with its reason codes, is the whole plan's
// (TestPropertyScopedPlan). A kept dependency's chain runs to the nearest
// root of C or release outside C, which the whole plan's breadth-first
// marking may pass through to a root higher up. A release outside C has
// no Decision in the plan's list; Plan.Decision answers Keep for it,
// with its own reasons when it is a root and as outside the scope
// otherwise.
type scoper struct {
	p     *Plan
	ix    *rootIndex
	g     *depgraph.Graph
	inv   *pkgstore.Inventory
	hooks HookFunc
	pkgs  map[pkgstore.Ident]*scopedPackage
	roots map[pkgstore.Ref][]Reason // rootsOf, as asked
	// inS and inC say, by Ref, what is in S and in C.
	inS, inC []bool
	// memo0, memoF, memoH and memoK are what walking up found (unknown,
	// no, yes), by Ref: reached0, reachedF, reached through a hook root
	// (a release reachedF is never asked about there), and kept when not
	// reached1.
	memo0, memoF, memoH, memoK []uint8
	// seen marks, by Ref, the releases one walk up (the seen-th) met.
	seen  []uint32
	walks uint32
}

// What a memo says of a release.
const (
	unknown uint8 = iota
	no
	yes
)

// scopedPackage is one package's releases (oldest first), the count's
// reasons for each, and its uninstall-hook root once asked (hookAsked).
type scopedPackage struct {
	rels      []*pkgstore.Release
	counted   []bool
	count     [][]Reason // countRoots, once asked
	hook      *pkgstore.Release
	hookAsked bool
}

// scope computes a limited plan's decisions for the releases of C (see
// scoper). p has its inventory, graph, policy, clocks, finders and
// spellings; its Decisions, reach, rootOf and freed are made here. It
// reports false when it finds a kept release with no chain to what keeps
// it, which cannot happen: the caller then makes the whole plan.
func (p *Plan) scope(hooks HookFunc) bool {
	n := p.Inventory.NumRefs()
	s := &scoper{p: p, ix: p.indexRoots(), g: p.Graph, inv: p.Inventory, pkgs: map[pkgstore.Ident]*scopedPackage{},
		roots: map[pkgstore.Ref][]Reason{}, inS: make([]bool, n), inC: make([]bool, n),
		memo0: make([]uint8, n), memoF: make([]uint8, n), memoH: make([]uint8, n), memoK: make([]uint8, n),
		seen: make([]uint32, n)}
	if !p.Policy.IgnoreUninstallHooks {
		s.hooks = hooks
	}
	p.ix = s.ix
	S, C := s.region()

	// 2. The freed-dependency rule.
	isRoot0 := s.isRoot
	isRootF := isRoot0
	if p.freesDeps() {
		var removed0 []pkgstore.Ref
		for _, r := range S {
			if !s.up(r, isRoot0, s.memo0) {
				removed0 = append(removed0, r)
			}
		}
		drop := map[pkgstore.Ref]bool{}
		for _, d := range s.g.Closure(removed0...) {
			if s.inv.ReleaseOf(d) != nil && !p.inScope(s.inv.Ident(d)) && s.countOnly(d) {
				drop[d] = true
			}
		}
		if len(drop) > 0 {
			isRootP := func(y pkgstore.Ref) bool { return !drop[y] && isRoot0(y) }
			memoP := make([]uint8, len(s.memoF))
			keep := false
			for _, r := range S {
				if s.up(r, isRoot0, s.memo0) && !s.up(r, isRootP, memoP) {
					keep = true // the count stays (freeDeps)
					break
				}
			}
			if !keep {
				isRootF, s.memoF = isRootP, memoP
			}
		}
	}
	reachedF := func(y pkgstore.Ref) bool { return s.up(y, isRootF, s.memoF) }
	// 3. Uninstall hooks: every release whose walk up meets no root
	// (reachedF) has only such releases above it.
	isHook := func(y pkgstore.Ref) bool { return s.hookRoot(y, isRootF, reachedF) == y }
	reached1 := func(y pkgstore.Ref) bool { return reachedF(y) || s.up(y, isHook, s.memoH) }

	// 4. The scope. The roots of C first: its own (isRootF), hooks',
	// and, with no-deps, each release of C\S not reached1 (freed, and so
	// kept as no-deps asks). Every other release of C is kept exactly
	// when a root of C, or any release outside C, is above it (up with
	// isFinal): reached1 by a root, or kept by one the scope adds.
	names := p.scopeNames()
	final := map[pkgstore.Ref]bool{} // the roots of C, as the whole plan marks them
	for _, c := range C {
		switch {
		case isRootF(c):
			p.rootOf[c] = s.rootsOf(c)
		case isHook(c):
			p.rootOf[c] = []Reason{s.hookReason(c)}
		case p.Policy.NoDeps && !s.inS[c] && !reached1(c):
			p.addRoot(c, CodeNoDeps, fmt.Sprintf("needed only by releases of %s that this run removes, and kept as no-deps asks (as hab pkg uninstall --no-deps)", names))
		default:
			continue
		}
		final[c] = true
	}
	isFinal := func(y pkgstore.Ref) bool { return final[y] || !s.inC[y] }
	p.freed = map[pkgstore.Ref]string{}
	kept := map[pkgstore.Ref]bool{}
	for _, c := range C {
		switch {
		case final[c]:
		case s.up(c, isFinal, s.memoK):
			kept[c] = true
		case !s.inS[c]:
			p.freed[c] = fmt.Sprintf("needed only by releases of %s that this run removes (the packages it is limited to), and no kept release needs it", names)
		}
	}

	// The decisions, in inventory order, with the chain that keeps each
	// kept release that is not a root.
	p.reach = s.g.Marks()
	for _, c := range C {
		if final[c] {
			p.reach.MarkRoot(c)
		}
	}
	keeps := func(y pkgstore.Ref) bool { return !s.inC[y] || final[y] || kept[y] }
	p.Decisions = make([]Decision, 0, len(C))
	for _, c := range C {
		if kept[c] && !s.chain(c, keeps, isRoot0) {
			return false
		}
		p.Decisions = append(p.Decisions, Decision{Release: s.inv.ReleaseOf(c)})
	}
	for i, d := range p.Decisions {
		p.decisionAt[d.Release.Ref] = int32(i)
	}
	p.decide()
	return true
}

// region finds S, the installed releases of the scope, and C, S with
// every installed release they need, transitively; both in inventory
// order.
func (s *scoper) region() (S, C []pkgstore.Ref) {
	p := s.p
	pats := p.only
	if len(p.Policy.Only) == 0 {
		pats = p.services // ServicesOnly alone
	}
	var rels []*pkgstore.Release
	for _, pat := range pats {
		for _, r := range s.inv.Satisfying(pat) {
			if r.Ident.Satisfies(pat) && p.inScope(r.Ident) && !s.inS[r.Ref] {
				s.inS[r.Ref] = true
				rels = append(rels, r)
			}
		}
	}
	sortReleases(rels)
	for _, r := range rels {
		S = append(S, r.Ref)
		s.inC[r.Ref] = true
	}
	deps := rels
	for _, d := range s.g.Closure(S...) {
		if r := s.inv.ReleaseOf(d); r != nil && !s.inC[d] {
			s.inC[d] = true
			deps = append(deps, r)
		}
	}
	sortReleases(deps)
	for _, r := range deps {
		C = append(C, r.Ref)
	}
	return S, C
}

// sortReleases sorts releases in inventory order.
func sortReleases(rels []*pkgstore.Release) {
	slices.SortFunc(rels, func(a, b *pkgstore.Release) int { return pkgstore.Compare(a.Ident, b.Ident) })
}

// pkg is the package of release r, read once.
func (s *scoper) pkg(r *pkgstore.Release) *scopedPackage {
	key := r.Ident.Package()
	if sp, ok := s.pkgs[key]; ok {
		return sp
	}
	rels := s.inv.Package(key.Origin, key.Name) // its own spelling: never folded
	sp := &scopedPackage{rels: rels, counted: s.p.counted(rels)}
	s.pkgs[key] = sp
	return sp
}

// rootsOf are the whole plan's root reasons for installed release x.
func (s *scoper) rootsOf(x pkgstore.Ref) []Reason {
	if rs, ok := s.roots[x]; ok {
		return rs
	}
	r := s.inv.ReleaseOf(x)
	var rs []Reason
	if r != nil {
		sp := s.pkg(r)
		if sp.count == nil {
			sp.count = s.p.countRoots(sp.rels)
		}
		rs = s.p.rootsOf(s.ix, r, sp.count[slices.Index(sp.rels, r)])
	}
	s.roots[x] = rs
	return rs
}

// isRoot reports whether rootsOf(x) has a reason, without making their
// texts: the count keeps x, or something else does (rootsOf without the
// count's reasons, which are the most common and are not made).
func (s *scoper) isRoot(x pkgstore.Ref) bool {
	if rs, ok := s.roots[x]; ok {
		return len(rs) > 0
	}
	r := s.inv.ReleaseOf(x)
	if r == nil {
		return false
	}
	sp := s.pkg(r)
	return sp.counted[slices.Index(sp.rels, r)] || len(s.p.rootsOf(s.ix, r, nil)) > 0
}

// countOnly is Plan.countOnly for a release rootsOf answers.
func (s *scoper) countOnly(x pkgstore.Ref) bool {
	rs := s.rootsOf(x)
	return len(rs) > 0 && !slices.ContainsFunc(rs, func(r Reason) bool { return r.Code != CodeLatest })
}

// up reports whether x, or a release that needs it transitively, is
// one is accepts, walking up breadth first and asking each release as
// it meets it (the first found ends the walk). memo keeps the answers: a
// release found not to be is never walked again, nor are the releases
// above it (none of them is, either). is may walk up itself.
func (s *scoper) up(x pkgstore.Ref, is func(pkgstore.Ref) bool, memo []uint8) bool {
	if v := memo[x]; v != unknown {
		return v == yes
	}
	if is(x) {
		memo[x] = yes
		return true
	}
	s.walks++
	walk := s.walks
	s.seen[x] = walk
	queue := []pkgstore.Ref{x}
	for i := 0; i < len(queue); i++ {
		for _, d := range s.g.NeededBy(queue[i]) {
			if s.seen[d] == walk {
				continue
			}
			s.seen[d] = walk
			switch memo[d] {
			case yes:
				memo[x] = yes
				return true
			case no:
				continue
			}
			if is(d) {
				memo[d], memo[x] = yes, yes
				return true
			}
			queue = append(queue, d)
		}
	}
	for _, y := range queue {
		memo[y] = no
	}
	return false
}

// hookRoot is the uninstall-hook root of x's package (computeAt's step):
// its newest release shipping hooks/uninstall when none of its releases
// is reachedF, else -1. A package with a root (isRootF: its count keeps
// one, most often) has none.
func (s *scoper) hookRoot(x pkgstore.Ref, isRootF, reachedF func(pkgstore.Ref) bool) pkgstore.Ref {
	r := s.inv.ReleaseOf(x)
	if s.hooks == nil || r == nil {
		return -1
	}
	sp := s.pkg(r)
	if !sp.hookAsked {
		sp.hookAsked = true
		reached := func(r *pkgstore.Release) bool { return reachedF(r.Ref) }
		if !slices.ContainsFunc(sp.rels, func(r *pkgstore.Release) bool { return isRootF(r.Ref) }) &&
			!slices.ContainsFunc(sp.rels, reached) {
			for i := len(sp.rels) - 1; i >= 0; i-- {
				if s.hooks(sp.rels[i].Ident) {
					sp.hook = sp.rels[i]
					break
				}
			}
		}
	}
	if sp.hook == nil {
		return -1
	}
	return sp.hook.Ref
}

func (s *scoper) hookReason(x pkgstore.Ref) Reason {
	id := s.inv.Ident(x)
	return Reason{CodeUninstall, "last release of " + pkgName(id) + " and it ships hooks/uninstall, which hab-gc does not run"}
}

// chain marks a shortest chain from a release that keeps c down to c
// (p.reach), through releases that are kept (keeps): walking up from c
// to the first marked release (a root of C, or a release of a chain
// marked before) or release outside C. That one, when not marked, is
// marked a root with its own reasons when it has some, else as outside
// the scope: every release outside C is kept by a limited plan, and
// that is why when nothing protects it. (The whole plan's chain may run
// on, through it, to a root higher up.) It reports false when it finds
// no such release.
func (s *scoper) chain(c pkgstore.Ref, keeps, isRoot0 func(pkgstore.Ref) bool) bool {
	p := s.p
	from := map[pkgstore.Ref]pkgstore.Ref{c: -1}
	queue := []pkgstore.Ref{c}
	for i := 0; i < len(queue); i++ {
		for _, d := range s.g.NeededBy(queue[i]) {
			if _, ok := from[d]; ok || !keeps(d) {
				continue
			}
			from[d] = queue[i]
			if !p.reach.Reached(d) && !s.inC[d] {
				if isRoot0(d) {
					p.rootOf[d] = s.rootsOf(d)
				} else {
					p.rootOf[d] = []Reason{{CodeOutsideOnly, "not among the packages this run is limited to (" + p.scopeNames() + "), nor needed only by their removed releases"}}
				}
				p.reach.MarkRoot(d)
			}
			if p.reach.Reached(d) {
				for x := d; from[x] != -1; x = from[x] {
					p.reach.MarkVia(from[x], x)
				}
				return true
			}
			queue = append(queue, d)
		}
	}
	return false
}
