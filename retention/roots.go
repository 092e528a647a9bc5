package retention

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/internal/inuse"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrRootsUnknown: a RootFinder failed, so nothing is removed.
var ErrRootsUnknown = errors.New("cannot tell which releases are in use: refusing to remove anything")

// What a RootFinder reports, defined below retention for runroots.
type (
	Root     = inuse.Root
	Found    = inuse.Found
	ProbeDir = inuse.ProbeDir
	Probed   = inuse.Probed
)

// probeFound asks every Found's Probe about dirs and adds what it finds,
// in place.
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
		if pr.Notice != "" {
			f.Notice = pr.Notice
		}
	}
	return nil
}

// removalDirs are the plan's removals to probe; with listed, only those it
// still lists (a probe of a directory gone since may fail the whole run).
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
	hidden := p.Inventory.Hidden
	if listed != nil {
		hidden = listed.Hidden
	}
	for _, d := range p.Decisions {
		if keep(d) {
			dirs = append(dirs, ProbeDir{Ident: d.Release.Ident, Path: hidden[d.Release.Ident]}) // "": its own directory
		}
	}
	return dirs
}

// pendingDirs are an interrupted run's hidden releases finishDebris may
// put back.
func pendingDirs(inv *pkgstore.Inventory) []ProbeDir {
	var dirs []ProbeDir
	for _, d := range inv.Debris {
		if id, ok := pendingIdent(d); ok {
			dirs = append(dirs, ProbeDir{Ident: id, Path: d})
		}
	}
	return dirs
}

// planProbedGraph is computeAt then, when a Found has a Probe, the probe
// of the removals and the plan made again with what it found.
func planProbedGraph(ctx context.Context, inv *pkgstore.Inventory, g *depgraph.Graph, pol Policy, now, realNow time.Time, hooks func(pkgstore.Ident) bool, found []Found) (*Plan, error) {
	p, err := computeAt(inv, g, pol, now, realNow, hooks, found)
	if err != nil || !slices.ContainsFunc(found, func(f Found) bool { return f.Probe != nil }) {
		return p, err
	}
	g = p.Graph
	if err := probeFound(ctx, found, removalDirs(p, nil)); err != nil {
		return nil, err
	}
	if p, err = computeAt(inv, g, pol, now, realNow, hooks, found); err == nil {
		p.InstallDirs = installDirs(ctx, inv, found, true)
	}
	return p, err
}

// A RootFinder finds releases in use outside the store's own files. When
// it cannot look it returns an error, never a partial answer.
type RootFinder interface {
	FindRoots(ctx context.Context, inv *pkgstore.Inventory) (Found, error)
}

// FindRoots reads the processes (unless RuntimeRoots is off), asks each
// RootFinder, then reads the live leases; a failure wraps ErrRootsUnknown.
func (p Policy) FindRoots(ctx context.Context, inv *pkgstore.Inventory) ([]Found, error) {
	if inv == nil {
		return nil, fmt.Errorf("%w: no inventory", ErrRootsUnknown)
	}
	var out []Found
	for i, f := range p.finders() {
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

// expandRoots replaces each partial ident root by the releases it matches.
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

func foundInstalls(found []Found) []pkgstore.Installing {
	var out []pkgstore.Installing
	for _, f := range found {
		out = append(out, f.Installs...)
	}
	return out
}

func rootsByIdent(found []Found) map[pkgstore.Ident][]Reason {
	m := map[pkgstore.Ident][]Reason{}
	for _, f := range found {
		for _, r := range f.Roots {
			m[r.Ident] = append(m[r.Ident], Reason{Code: r.Code, Text: r.Text})
		}
	}
	return m
}
