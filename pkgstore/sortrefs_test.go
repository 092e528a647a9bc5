package pkgstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRefsFromIsSortRefs: merging the Refs interned since with the
// sorted Refs of a prefix gives what sorting all of them gives, for
// random idents (many sharing origin, name and version) and every split.
func TestSortRefsFromIsSortRefs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		seen := map[string]bool{}
		var idents []Ident
		for n := rng.IntN(60); len(idents) < n; {
			id := Ident{Origin: fmt.Sprintf("o%d", rng.IntN(3)), Name: fmt.Sprintf("n%d", rng.IntN(4)),
				Version: fmt.Sprintf("1.%d", rng.IntN(12)), Release: fmt.Sprintf("2020010100000%d", rng.IntN(10))}
			if rng.IntN(5) == 0 {
				id.Release = "" // an ident a dependency line names partly
			}
			if !seen[id.String()] {
				seen[id.String()] = true
				idents = append(idents, id)
			}
		}
		want := sortRefs(idents)
		for k := 0; k <= len(idents); k++ {
			prev := sortRefs(idents[:k])
			if got := sortRefsFrom(idents, prev); !slices.Equal(got, want) {
				t.Fatalf("round %d, prefix %d of %d: %v, want %v", round, k, len(idents), got, want)
			}
		}
	}
	if got := sortRefsFrom(nil, nil); len(got) != 0 {
		t.Errorf("no idents: %v", got)
	}
}
