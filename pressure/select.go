package pressure

import (
	"cmp"
	"slices"
	"time"
)

// Candidate is a release the plan may remove, as the selection sees it.
// Select takes candidates in pressure order: the most superseded first
// (highest Behind), then the oldest installed (InstalledAt), then by Key.
type Candidate struct {
	// Key names it (its ident).
	Key string
	// Package is its origin/name.
	Package string
	// Behind is how many installed releases of its package are newer.
	Behind int
	// OldestRank is its place among its package's installed releases,
	// oldest first (1: the oldest).
	OldestRank int
	// InstalledAt is when it was installed.
	InstalledAt time.Time
	// Size is the space it occupies (allocated); below 0: unknown, counted
	// as 0, so that more is taken rather than too little.
	Size int64
	// Dependents are the Keys of other candidates that need it, directly
	// or not: taking it takes them first.
	Dependents []string
}

// Choice is a candidate the selection takes.
type Choice struct {
	Candidate
	// Position is its place in the order of removal, from 1.
	Position int
	// With is the Key of the candidate whose removal brought it (it needs
	// that one), or "" when it was taken on its own turn.
	With string
}

// pressureOrder compares candidates in pressure order (see Candidate):
// negative when a goes before b.
func pressureOrder(a, b Candidate) int {
	if c := cmp.Compare(b.Behind, a.Behind); c != 0 {
		return c
	}
	if c := a.InstalledAt.Compare(b.InstalledAt); c != 0 {
		return c
	}
	return cmp.Compare(a.Key, b.Key)
}

// Select takes candidates in pressure order (see Candidate) until avail plus what they
// occupy reaches target, and stops; avail at or above target takes none.
// A candidate's Dependents are taken just before it. reached reports
// whether the target is met; short is what is still missing (0 when
// reached). The input is not changed.
func Select(cands []Candidate, avail, target int64) (chosen []Choice, reached bool, short int64) {
	ordered := slices.Clone(cands)
	slices.SortStableFunc(ordered, pressureOrder)
	byKey := make(map[string]Candidate, len(ordered))
	for _, c := range ordered {
		byKey[c.Key] = c
	}
	taken := map[string]bool{}
	have := avail
	take := func(c Candidate, with string) {
		taken[c.Key] = true
		chosen = append(chosen, Choice{Candidate: c, Position: len(chosen) + 1, With: with})
		have += max(c.Size, 0)
	}
	for _, c := range ordered {
		if have >= target {
			break
		}
		if taken[c.Key] {
			continue
		}
		deps := make([]Candidate, 0, len(c.Dependents))
		for _, k := range c.Dependents {
			if d, ok := byKey[k]; ok && !taken[k] {
				deps = append(deps, d)
			}
		}
		slices.SortStableFunc(deps, pressureOrder)
		for _, d := range deps {
			take(d, c.Key)
		}
		take(c, "")
	}
	if have >= target {
		return chosen, true, 0
	}
	return chosen, false, target - have
}
