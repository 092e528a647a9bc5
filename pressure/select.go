package pressure

import (
	"cmp"
	"slices"
	"time"
)

// Candidate is what Select may take, in pressure order: highest Behind,
// then oldest InstalledAt, then Key.
type Candidate struct {
	Key         string
	Package     string // origin/name
	Behind      int    // newer installed releases of its package
	OldestRank  int    // 1: its package's oldest
	InstalledAt time.Time
	Size        int64    // allocated; below 0 (unknown) counts as 0
	Dependents  []string // Keys taken just before it
}

type Choice struct {
	Candidate
	Position int    // from 1
	With     string // the Key whose removal brought it
}

func pressureOrder(a, b Candidate) int {
	if c := cmp.Compare(b.Behind, a.Behind); c != 0 {
		return c
	}
	if c := a.InstalledAt.Compare(b.InstalledAt); c != 0 {
		return c
	}
	return cmp.Compare(a.Key, b.Key)
}

// Select takes candidates in pressure order until avail plus their sizes
// reaches target; short is what is still missing.
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
