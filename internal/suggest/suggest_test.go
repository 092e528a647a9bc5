package suggest

import (
	"math/rand/v2"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"fs_rot", "fs_root", 1},
		{"shedule", "schedule", 1},
		{"kitten", "sitting", 3},
		{"keep_latest", "keep_latest", 0},
		{"ab", "ba", 2},
	} {
		t.Run(tc.a+"/"+tc.b, func(t *testing.T) {
			if got := Distance(tc.a, tc.b); got != tc.want {
				t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestPropertyDistanceIsAMetric: symmetric, zero only between equal
// strings, within the longer length and at least the length difference,
// and obeying the triangle inequality.
func TestPropertyDistanceIsAMetric(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = "abc_"[r.IntN(4)]
		}
		return string(b)
	}
	for range 2000 {
		a, b, c := word(), word(), word()
		ab, ba := Distance(a, b), Distance(b, a)
		if ab != ba {
			t.Fatalf("Distance(%q, %q) = %d but Distance(%q, %q) = %d", a, b, ab, b, a, ba)
		}
		if (ab == 0) != (a == b) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, ab)
		}
		if ab > max(len(a), len(b)) || ab < max(len(a)-len(b), len(b)-len(a)) {
			t.Fatalf("Distance(%q, %q) = %d is out of bounds", a, b, ab)
		}
		if ac, cb := Distance(a, c), Distance(c, b); ab > ac+cb {
			t.Fatalf("Distance(%q, %q) = %d > %d + %d via %q", a, b, ab, ac, cb, c)
		}
	}
}

func TestHint(t *testing.T) {
	known := []string{"", "fs_root", "schedule", "keep_latest", "keep_last"}
	for _, tc := range []struct {
		word     string
		maxEdits int
		want     string
	}{
		{"fs_rot", 2, " (did you mean fs_root?)"},
		{"shedule", 2, " (did you mean schedule?)"},
		{"keep_lates", 2, " (did you mean keep_latest?)"}, // 1 edit, before keep_last's 2
		{"keep_las", 2, " (did you mean keep_last?)"},
		{"zzzzzzzz", 2, ""},
		{"fs_rt", 1, ""}, // 2 edits away, 1 allowed
		{"", 0, ""},      // the empty known word is never suggested
	} {
		t.Run(tc.word, func(t *testing.T) {
			if got := Hint(tc.word, known, tc.maxEdits); got != tc.want {
				t.Errorf("Hint(%q, %d) = %q, want %q", tc.word, tc.maxEdits, got, tc.want)
			}
		})
	}
}

// TestNearestTakesTheFirstOfTies: of two words as near, the first listed.
func TestNearestTakesTheFirstOfTies(t *testing.T) {
	if got := Nearest("ab", []string{"ax", "xb"}, 2); got != "ax" {
		t.Errorf("got %q, want ax", got)
	}
	if got := Nearest("ab", []string{"xb", "ax"}, 2); got != "xb" {
		t.Errorf("got %q, want xb", got)
	}
}
