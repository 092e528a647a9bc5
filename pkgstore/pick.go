package pkgstore

import (
	"math/bits"
	"strings"
)

// habitatPartialCompare is PackageIdent::partial_cmp, with which the
// Supervisor picks a release. It is not transitive: 2.0 < master < v1.0
// as strings, yet v1.0 < 2.0 as versions.
func habitatPartialCompare(a, b Ident) int {
	c, err := habitatCompareVersions(a.Version, b.Version)
	switch {
	case err != nil:
		if c := strings.Compare(a.Version, b.Version); c != 0 {
			return c
		}
	case c != 0:
		return c
	}
	return strings.Compare(a.Release, b.Release)
}

// maxExactPick bounds the exhaustive search of SupervisorPicks: 2^12
// subsets of candidates, each with up to 12 winners.
const maxExactPick = 12

// supervisorPicks returns the indexes of rels the Supervisor may run:
// PackageInstall::load folds the listing in directory order, so where the
// comparison is not an order, every release that wins for some order
// (all of them beyond maxExactPick).
func supervisorPicks(rels []Ident) []int {
	n := len(rels)
	all := func() []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	if n <= 1 {
		return all()
	}
	cmp := make([][]int8, n)
	for i := range cmp {
		cmp[i] = make([]int8, n)
		for j := range cmp[i] {
			if i != j {
				cmp[i][j] = int8(habitatPartialCompare(rels[i], rels[j]))
			}
		}
	}
	// A top class that ties and beats all else wins whatever the order.
	var top []int
	for i := range n {
		beaten := false
		for j := range n {
			if cmp[i][j] < 0 {
				beaten = true
				break
			}
		}
		if !beaten {
			top = append(top, i)
		}
	}
	if len(top) > 0 && dominates(cmp, top) {
		return top
	}
	if n > maxExactPick {
		return all()
	}
	// reach[mask] holds, as a bit set, every winner of a fold over the
	// releases in mask, in some order.
	reach := make([]uint16, 1<<n)
	for i := range n {
		reach[1<<i] = 1 << i
	}
	for mask := 1; mask < len(reach); mask++ {
		for ws := reach[mask]; ws != 0; ws &= ws - 1 {
			w := bits.TrailingZeros16(ws)
			for j := range n {
				if mask&(1<<j) != 0 {
					continue
				}
				nw := w
				if cmp[w][j] < 0 {
					nw = j
				}
				reach[mask|1<<j] |= 1 << nw
			}
		}
	}
	var out []int
	for ws := reach[len(reach)-1]; ws != 0; ws &= ws - 1 {
		out = append(out, bits.TrailingZeros16(ws))
	}
	return out
}

// dominates reports whether the members of top tie with each other and
// beat every release outside it.
func dominates(cmp [][]int8, top []int) bool {
	in := make([]bool, len(cmp))
	for _, i := range top {
		in[i] = true
	}
	for _, i := range top {
		for j := range cmp {
			if i != j && (in[j] && cmp[i][j] != 0 || !in[j] && cmp[i][j] <= 0) {
				return false
			}
		}
	}
	return true
}
