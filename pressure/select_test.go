package pressure

import (
	"slices"
	"testing"
	"time"
)

func TestSelect(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	c := func(key string, behind, day0 int, size int64, deps ...string) Candidate {
		return Candidate{Key: key, Package: "p", Behind: behind, OldestRank: 1, InstalledAt: day(day0), Size: size, Dependents: deps}
	}
	cands := []Candidate{
		c("a1", 1, 5, 100),
		c("a0", 2, 1, 100),
		c("b0", 1, 2, 300),
		c("lib0", 1, 3, 50, "a1"), // a1 needs lib0
		c("x", 0, 9, 10),          // not superseded (an --only version), last
	}
	for _, tc := range []struct {
		name          string
		avail, target int64
		want          []string
		with          map[string]string
		reached       bool
		short         int64
	}{
		{name: "enough already", avail: 1000, target: 500, want: nil, reached: true},
		{name: "most superseded first", avail: 0, target: 100, want: []string{"a0"}, reached: true},
		{name: "then oldest installed", avail: 0, target: 150, want: []string{"a0", "b0"}, reached: true},
		{name: "dependents come first", avail: 0, target: 450, want: []string{"a0", "b0", "a1", "lib0"}, with: map[string]string{"a1": "lib0"}, reached: true},
		{name: "stops exactly", avail: 400, target: 500, want: []string{"a0"}, reached: true},
		{name: "not enough", avail: 0, target: 1000, want: []string{"a0", "b0", "a1", "lib0", "x"}, with: map[string]string{"a1": "lib0"}, reached: false, short: 440},
		{name: "unknown size counts 0", avail: 0, target: 1, want: []string{"a0"}, reached: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(cands)
			if tc.name == "unknown size counts 0" {
				in = []Candidate{c("a0", 2, 1, -1), c("b0", 1, 2, 5)}
				tc.want = []string{"a0", "b0"}
			}
			got, reached, short := Select(in, tc.avail, tc.target)
			var keys []string
			for i, ch := range got {
				keys = append(keys, ch.Key)
				if ch.Position != i+1 {
					t.Errorf("%s at position %d, want %d", ch.Key, ch.Position, i+1)
				}
				if ch.With != tc.with[ch.Key] {
					t.Errorf("%s taken with %q, want %q", ch.Key, ch.With, tc.with[ch.Key])
				}
			}
			if !slices.Equal(keys, tc.want) || reached != tc.reached || short != tc.short {
				t.Fatalf("Select = %v, reached %v, short %d; want %v, %v, %d", keys, reached, short, tc.want, tc.reached, tc.short)
			}
		})
	}
}
