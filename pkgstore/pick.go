package pkgstore

import (
	"math/bits"
	"strings"
)

// habitatPartialCompare is Habitat's PackageIdent::partial_cmp for two
// fully qualified releases of one package, the comparison the Supervisor
// uses to pick the release a spec runs: version_sort decides; equal versions
// (such as 1.0 and 1.0.0) are ordered by release; where version_sort fails
// (no digit or dot, an empty or overflowing part), the raw version strings
// are compared instead, then the releases. It returns -1, 0 or +1. It is
// not transitive: 2.0 < master (as strings), master < v1.0 (as strings),
// yet v1.0 < 2.0 (as versions).
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

// SupervisorPicks returns the indexes (ascending) of the releases among
// rels, all satisfying one spec, that the Supervisor may run for it.
// Habitat's PackageInstall::load folds the listing, which comes in
// directory order: the first release is the winner, and each next one
// replaces it when habitatPartialCompare(winner, next) < 0. Where that
// comparison is a consistent order, the one newest release (or each of
// several equal ones) is the answer; where it is not, every release that
// wins for some listing order is, found exhaustively up to 12 releases.
// Beyond that, all of rels are returned: the pick is then not worked out,
// and protecting them all is safe.
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
	// Fast path: a top class whose members tie with each other and beat
	// everything else. The first of them listed wins, whatever came before,
	// and nothing after replaces it.
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
