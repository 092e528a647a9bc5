package pkgstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInsertRefsIsSortRefs: inserting the Refs interned since into the
// sorted Refs of a prefix gives what sorting all of them gives, for
// random idents (many sharing origin, name and version) and every split.
func TestInsertRefsIsSortRefs(t *testing.T) {
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
			if got := insertRefs(prev, len(idents), func(r Ref) Ident { return idents[r] }); !slices.Equal(got, want) {
				t.Fatalf("round %d, prefix %d of %d: %v, want %v", round, k, len(idents), got, want)
			}
		}
	}
	if got := insertRefs(nil, 0, nil); len(got) != 0 {
		t.Errorf("no idents: %v", got)
	}
}

// sortRefs is every Ref of idents, ordered by cmpFields.
func sortRefs(idents []Ident) []Ref {
	out := make([]Ref, len(idents))
	for i := range out {
		out[i] = Ref(i)
	}
	slices.SortFunc(out, func(a, b Ref) int { return cmpFields(idents[a], idents[b]) })
	return out
}
