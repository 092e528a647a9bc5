package retention

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrRootsUnknown is wrapped by the error of a plan or an Apply when a
// RootFinder failed: what is in use is then unknown, so nothing is
// removed.
var ErrRootsUnknown = errors.New("cannot tell which releases are in use: refusing to remove anything")

// Root is a release kept for a reason that the store's files do not show:
// a process using it, a Supervisor running it, a lease on it.
type Root struct {
	// Ident is the release, fully qualified; a release that is not
	// installed (for example one Apply has just hidden) may be named: Apply
	// then puts it back. A partial ident (ORIGIN/NAME or
	// ORIGIN/NAME/VERSION) keeps every installed or hidden release
	// satisfying it, as a lease's does. One without an origin and a name
	// fails the plan and Apply with ErrRootsUnknown.
	Ident pkgstore.Ident `json:"ident"`
	Code  Code           `json:"code"`
	Text  string         `json:"text"`
}

// Found is what one RootFinder found.
type Found struct {
	// Source names the finder ("processes", "supervisor").
	Source string `json:"source"`
	Roots  []Root `json:"roots"`
	// Summary says what was looked at, in one sentence, for reports.
	Summary string `json:"summary"`
	// Counts are the numbers behind Summary (for example "inspected",
	// "not_inspected"), for machine-readable reports.
	Counts map[string]int `json:"counts,omitempty"`
	// Installs are installs in progress the finder sees and the store's
	// files may not (a process holding an archive of the artifact cache
	// open while Habitat verifies it: pkgstore.HeldArchive). The plan and
	// Apply treat them as the inventory's Installing: what each needs is
	// kept, and while one is Active every removal waits.
	Installs []pkgstore.Installing `json:"installs,omitempty"`
	// Probe, when set, says that the finder could not see everything (for
	// example processes /proc does not show fully) and can check the
	// releases about to go another way. PlanStore calls it with every
	// release its plan would remove, after the roots above are applied
	// (PlanToApply does not); Apply calls it under the lock with every
	// release the plan removes that the store still lists and every hidden
	// one an interrupted run left, and again after hiding with the hidden
	// releases. The roots it
	// returns are added to Roots, its counts to Counts. Its error (it
	// cannot vouch for them) fails the plan, or refuses the Apply before
	// it changes anything, with ErrRootsUnknown.
	Probe func(ctx context.Context, dirs []ProbeDir) (Probed, error) `json:"-"`
}

// ProbeDir is a release directory that a Found's Probe is asked about.
type ProbeDir struct {
	Ident pkgstore.Ident
	// Path is the directory relative to the store: the name Apply hid it
	// under in its VERSION directory, or empty for the release's own
	// directory, ORIGIN/NAME/VERSION/RELEASE. Dir gives it either way.
	Path string
}

// Dir is the directory relative to the store: Path, or Ident's
// ORIGIN/NAME/VERSION/RELEASE when Path is empty (made when asked for, so
// that a plan of 100,000 removals does not hold a path for each).
func (d ProbeDir) Dir() string {
	if d.Path != "" {
		return d.Path
	}
	return d.Ident.String()
}

// Probed is what a Probe found.
type Probed struct {
	Roots []Root
	// Installs are installs in progress the probe found (added to the
	// Found's Installs).
	Installs []pkgstore.Installing
	Counts   map[string]int
	// Summary, when set, replaces the Found's.
	Summary string
}

// probeFound asks every Found that has a Probe about dirs, and adds what
// it finds to it (found is changed in place). A failing Probe is an error
// wrapping ErrRootsUnknown.
func probeFound(ctx context.Context, found []Found, dirs []ProbeDir) error {
	if len(dirs) == 0 {
		return nil
	}
	for i := range found {
		f := &found[i]
		if f.Probe == nil {
			continue
		}
		pr, err := f.Probe(ctx, dirs)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrRootsUnknown, err)
		}
		f.Roots = append(slices.Clip(f.Roots), pr.Roots...)
		f.Installs = append(slices.Clip(f.Installs), pr.Installs...)
		counts := maps.Clone(f.Counts)
		if counts == nil && len(pr.Counts) > 0 {
			counts = map[string]int{}
		}
		for k, v := range pr.Counts {
			counts[k] += v
		}
		f.Counts = counts
		if pr.Summary != "" {
			f.Summary = pr.Summary
		}
	}
	return nil
}

// removalDirs are the directories of a plan's removals, for probeFound;
// with listed set (the store as Apply scanned it under the lock), only
// those it still lists: Apply hides no other (notListed), and a finder's
// probe asked about a directory that is gone (an uninstall while Apply
// waited for the lock) or no longer a release's may fail, refusing the
// whole run (Windows' check for files held open cannot open it). A
// release an interrupted run hid, which finishDebris may put back, is
// asked about under its hidden name (pendingDirs).
func removalDirs(p *Plan, listed *pkgstore.Inventory) []ProbeDir {
	keep := func(d Decision) bool {
		if d.Action != Remove {
			return false
		}
		if listed == nil {
			return true
		}
		r, ok := listed.Lookup(d.Release.Ident)
		return ok && listed.ReleaseOf(r) != nil
	}
	n := 0
	for _, d := range p.Decisions {
		if keep(d) {
			n++
		}
	}
	dirs := make([]ProbeDir, 0, n)
	for _, d := range p.Decisions {
		if keep(d) {
			dirs = append(dirs, ProbeDir{Ident: d.Release.Ident}) // Dir: its own directory
		}
	}
	return dirs
}

// pendingDirs are the hidden directories of an interrupted run that
// finishDebris may put back, for probeFound.
func pendingDirs(inv *pkgstore.Inventory) []ProbeDir {
	var dirs []ProbeDir
	for _, d := range inv.Debris {
		if id, ok := pendingIdent(d); ok {
			dirs = append(dirs, ProbeDir{Ident: id, Path: d})
		}
	}
	return dirs
}

// planProbedGraph is ComputeFound followed, when a Found has a Probe, by
// that probe of the plan's removals and a plan computed again with what
// it found: a root it finds only keeps more (itself and what it needs).
// g is inv's graph when already built (nil: built here).
func planProbedGraph(ctx context.Context, inv *pkgstore.Inventory, g *depgraph.Graph, pol Policy, now, realNow time.Time, hooks HookFunc, found []Found) (*Plan, error) {
	p, err := computeAt(inv, g, pol, now, realNow, hooks, found)
	if err != nil || !slices.ContainsFunc(found, func(f Found) bool { return f.Probe != nil }) {
		return p, err
	}
	g = p.Graph
	if err := probeFound(ctx, found, removalDirs(p, nil)); err != nil {
		return nil, err
	}
	return computeAt(inv, g, pol, now, realNow, hooks, found)
}

// A RootFinder finds releases in use outside the store's own files. The
// plan consults it, and Apply consults it again under the store's lock
// and once more just before deleting, so that a use that began after the
// plan still keeps its release. It must return an error, never a partial
// answer it cannot vouch for, when it cannot look.
type RootFinder interface {
	FindRoots(ctx context.Context, inv *pkgstore.Inventory) (Found, error)
}

// FindRoots asks every finder of the policy, in order, then reads the
// live leases of the store's FS root (package lease; its Found, source
// "leases", is listed when there is any lease), which every policy
// honours. A failure of any of them is an error wrapping ErrRootsUnknown.
func (p Policy) FindRoots(ctx context.Context, inv *pkgstore.Inventory) ([]Found, error) {
	var out []Found
	for i, f := range p.RootFinders {
		if f == nil {
			return nil, fmt.Errorf("%w: root finder %d is nil", ErrRootsUnknown, i)
		}
		found, err := f.FindRoots(ctx, inv)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRootsUnknown, err)
		}
		if found, err = expandRoots(inv, found); err != nil {
			return nil, err
		}
		out = append(out, found)
	}
	leased, any, err := leaseRoots(inv)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRootsUnknown, err)
	}
	if any {
		out = append(out, leased)
	}
	return out, nil
}

// expandRoots replaces each partial ident among found's roots by the
// releases it matches (matchingReleases); a root without an origin and a
// name is an error wrapping ErrRootsUnknown, as it protects nothing the
// finder meant.
func expandRoots(inv *pkgstore.Inventory, found Found) (Found, error) {
	if !slices.ContainsFunc(found.Roots, func(r Root) bool { return !r.Ident.FullyQualified() }) {
		return found, nil
	}
	roots := make([]Root, 0, len(found.Roots))
	for _, r := range found.Roots {
		if r.Ident.Origin == "" || r.Ident.Name == "" {
			return Found{}, fmt.Errorf("%w: %s reported a root %q that names no package (%s)", ErrRootsUnknown, found.Source, r.Ident, r.Text)
		}
		for _, id := range matchingReleases(inv, r.Ident) {
			roots = append(roots, Root{Ident: id, Code: r.Code, Text: r.Text})
		}
	}
	found.Roots = roots
	return found, nil
}

// foundInstalls are the installs in progress every Found holds.
func foundInstalls(found []Found) []pkgstore.Installing {
	var out []pkgstore.Installing
	for _, f := range found {
		out = append(out, f.Installs...)
	}
	return out
}

// rootsByIdent indexes found roots by release, first reason first.
func rootsByIdent(found []Found) map[pkgstore.Ident][]Reason {
	m := map[pkgstore.Ident][]Reason{}
	for _, f := range found {
		for _, r := range f.Roots {
			m[r.Ident] = append(m[r.Ident], Reason{Code: r.Code, Text: r.Text})
		}
	}
	return m
}

// RootFinderFunc adapts a function to RootFinder.
type RootFinderFunc func(ctx context.Context, inv *pkgstore.Inventory) (Found, error)

// FindRoots calls f.
func (f RootFinderFunc) FindRoots(ctx context.Context, inv *pkgstore.Inventory) (Found, error) {
	return f(ctx, inv)
}

// HiddenRelease returns the release a directory named name (in a VERSION
// directory) holds when it is one Apply hid a release under
// (pkgstore.DebrisPrefix + "pending-RELEASE-..." or "doomed-RELEASE-..."),
// so that a RootFinder that meets a path inside it can name the release.
func HiddenRelease(name string) (release string, ok bool) {
	_, release, ok = parseDebris(name)
	if !ok || release == "x" {
		return "", false
	}
	return release, true
}
