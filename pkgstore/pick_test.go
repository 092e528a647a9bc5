package pkgstore

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestHabitatPartialCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"o/a/2.0/1", "o/a/master/1", -1}, // version_sort fails: "2.0" < "master" as strings
		{"o/a/v1.0/1", "o/a/2.0/1", -1},   // the regex finds 1.0 in v1.0
		{"o/a/v1.0/1", "o/a/master/1", 1}, // strings again
		{"o/a/1.0.0/1", "o/a/1.0/1", 0},   // equal versions, equal releases
		{"o/a/1.0.0/2", "o/a/1.0/1", 1},   // equal versions: releases decide
		{"o/a/1.0./1", "o/a/1.0/2", 1},    // version_sort fails on the empty part: strings
		{"o/a/1.0.2k/9", "o/a/1.0.2/1", -1},
	}
	for _, tt := range tests {
		a, b := MustParseIdent(tt.a), MustParseIdent(tt.b)
		if got := habitatPartialCompare(a, b); got != tt.want {
			t.Errorf("%s vs %s = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := habitatPartialCompare(b, a); got != -tt.want {
			t.Errorf("%s vs %s = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

// foldWinners runs Habitat's fold over every order of rels.
func foldWinners(rels []Ident) []int {
	idx := make([]int, len(rels))
	for i := range idx {
		idx[i] = i
	}
	seen := map[int]bool{}
	var perm func(k int)
	perm = func(k int) {
		if k == len(idx) {
			w := idx[0]
			for _, j := range idx[1:] {
				if habitatPartialCompare(rels[w], rels[j]) < 0 {
					w = j
				}
			}
			seen[w] = true
			return
		}
		for i := k; i < len(idx); i++ {
			idx[k], idx[i] = idx[i], idx[k]
			perm(k + 1)
			idx[k], idx[i] = idx[i], idx[k]
		}
	}
	perm(0)
	var out []int
	for w := range seen {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// TestSupervisorPicksIsEveryFoldWinner checks SupervisorPicks against
// Habitat's fold run over every listing order, on random stores mixing
// versions Habitat orders, cannot order, and spells two ways.
func TestSupervisorPicksIsEveryFoldWinner(t *testing.T) {
	versions := []string{"1.0", "1.0.0", "2.0", "master", "v1.0", "v3", "1.0.", "1.0-rc1", "develop", "0.9"}
	releases := []string{"20200101000000", "20210101000000"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		n := 1 + r.IntN(6)
		seen := map[Ident]bool{}
		var rels []Ident
		for len(rels) < n {
			id := Ident{"o", "a", versions[r.IntN(len(versions))], releases[r.IntN(len(releases))]}
			if !seen[id] {
				seen[id] = true
				rels = append(rels, id)
			}
		}
		want := foldWinners(rels)
		if got := SupervisorPicks(rels); !slices.Equal(got, want) {
			t.Fatalf("%v: picks %v, Habitat's fold can end on %v", rels, got, want)
		}
	}
}

func TestSupervisorPicksBeyondExactSearch(t *testing.T) {
	var rels []Ident
	for i := range maxExactPick + 3 {
		rels = append(rels, Ident{"o", "a", "1." + string(rune('0'+i%10)), "2020010100000" + string(rune('0'+i/10))})
	}
	rels = append(rels, MustParseIdent("o/a/master/1"), MustParseIdent("o/a/v0.5/1"))
	if got := SupervisorPicks(rels); len(got) != len(rels) {
		t.Fatalf("inconsistent order beyond the exact search: %v, want all %d", got, len(rels))
	}
	rels = rels[:len(rels)-1] // without v0.5, master beats everything
	if got := SupervisorPicks(rels); !slices.Equal(got, []int{len(rels) - 1}) {
		t.Fatalf("master is always picked, got %v", got)
	}
}

func TestMayRun(t *testing.T) {
	inv := NewInventory("/", "x86_64-linux", []ReleaseInfo{
		{Ident: MustParseIdent("o/app/1.0/1")}, {Ident: MustParseIdent("o/app/master/1")},
	})
	inv.AddService("app", MustParseIdent("o/app"))
	svc := inv.Services[0]
	if svc.Resolved.String() != "o/app/master/1" || len(svc.Ambiguous) != 0 {
		t.Fatalf("resolved %s, ambiguous %v", svc.Resolved, svc.Ambiguous)
	}
	for id, want := range map[string]bool{
		"o/app/1.0/1":    false, // installed, never picked
		"o/app/3.0/1":    false, // "3.0" < "master" as strings: master still wins
		"o/app/v1.0/1":   true,  // master < v1.0 < ... no consistent order: may win
		"o/app/master/2": true,  // a newer release of master
		"o/other/9/9":    false,
	} {
		if got := inv.MayRun(svc, MustParseIdent(id)); got != want {
			t.Errorf("MayRun(%s) = %v, want %v", id, got, want)
		}
	}
}
