package pkgstore

import (
	"errors"
	"slices"
	"testing"
)

// Every example from Habitat's own tests and the shared store page.
func TestHabitatCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0", "2.0", -1},
		{"1.0.0", "2.0.0", -1},
		{"2.0.1", "2.0.0", 1},
		{"2.1.1", "2.1.1", 0},
		{"2.1.1.4", "2.1.1.5", -1},
		{"20150521131347", "20150521131346", 1},
		{"1.10", "1.9", 1},
		{"1.0", "1.0.0", 0},
		{"1.0.0-alpha2", "1.0.0-alpha1", 1},
		{"1.0.0-alpha1", "1.0.0-alpha2", -1},
		{"1.0.0-beta1", "1.0.0-alpha1000", 1},
		{"2.1.1", "2.1.1-alpha2", 1},
		{"2.1.1-alpha2", "2.1.1", -1},
		{"2.1.1-alpha2", "3.2.0-rc.0", -1},
		{"2016i", "2016j", -1},
		{"1.0.0-alpha10", "1.0.0-alpha2", -1},
		{"1.0.2k", "1.0.2", -1},
		// A single "-" is kept as the extension; "-x" loses its dash.
		{"1.0-", "1.0-a", -1},
		{"1.0-b", "1.0b", 0},
		// Text before the numeric run is skipped by the regex.
		{"v1.2", "1.2", 0},
		// Lazy: decided before the bad part is reached.
		{"1.0.", "2.0", -1},
		{"3..1", "2.9", 1},
	}
	for _, tt := range tests {
		t.Run(tt.a+"_vs_"+tt.b, func(t *testing.T) {
			got, err := habitatCompareVersions(tt.a, tt.b)
			if err != nil {
				t.Fatalf("habitatCompareVersions(%q, %q): %v", tt.a, tt.b, err)
			}
			if got != tt.want {
				t.Errorf("habitatCompareVersions(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if c := compareVersions(tt.a, tt.b); c != tt.want {
				t.Errorf("compareVersions(%q, %q) = %d, want %d (must agree with Habitat)", tt.a, tt.b, c, tt.want)
			}
			back, err := habitatCompareVersions(tt.b, tt.a)
			if err != nil || back != -tt.want {
				t.Errorf("reverse: got %d, %v; want %d", back, err, -tt.want)
			}
		})
	}
}

func TestHabitatCompareVersionsFails(t *testing.T) {
	tests := []struct {
		a, b string
		want int // hab-gc's fallback
	}{
		{"1.0.0-alpha1", "undefined", 1}, // no numeric part sorts lowest
		{"master", "release", -1},        // two such: byte order
		{"1.0.", "1.0", -1},              // empty part below the padded 0
		{"1..2", "1.0.2", -1},
		{"1.99999999999999999999", "1.5", -1}, // overflow
		{"1.٣", "1.3", -1},                    // Arabic-Indic digit: \d in Rust, not a u64
		{"1..2", "1..3", -1},                  // equal bad parts, then 2 < 3
	}
	for _, tt := range tests {
		t.Run(tt.a+"_vs_"+tt.b, func(t *testing.T) {
			if _, err := habitatCompareVersions(tt.a, tt.b); !errors.Is(err, errIncomparable) {
				t.Fatalf("habitatCompareVersions(%q, %q) error = %v, want errIncomparable", tt.a, tt.b, err)
			}
			if got := compareVersions(tt.a, tt.b); got != tt.want {
				t.Errorf("compareVersions(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := compareVersions(tt.b, tt.a); got != -tt.want {
				t.Errorf("compareVersions(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
			}
		})
	}
}

func TestCompareIdents(t *testing.T) {
	in := []string{
		"core/redis/4.0.14/20200101000000",
		"core/redis/4.0.9/20210101000000",
		"core/redis/4.0.14/20190101000000",
		"core/redis/4.0.14.0/20190101000000", // same version as 4.0.14 to Habitat
		"core/redis/4.0.14-rc1/20230101000000",
		"core/openssl/1.0.2k/20200101000000",
		"core/openssl/1.0.2/20190101000000",
		"chef/hab/1.6.0/20200101000000",
		"core/redis/master/20240101000000",
	}
	want := []string{
		"chef/hab/1.6.0/20200101000000",
		"core/openssl/1.0.2k/20200101000000",
		"core/openssl/1.0.2/20190101000000",
		"core/redis/master/20240101000000",
		"core/redis/4.0.9/20210101000000",
		"core/redis/4.0.14-rc1/20230101000000",
		"core/redis/4.0.14/20190101000000",
		"core/redis/4.0.14.0/20190101000000", // tie with Habitat: raw string breaks it
		"core/redis/4.0.14/20200101000000",
	}
	ids := make([]Ident, len(in))
	for i, s := range in {
		ids[i] = MustParseIdent(s)
	}
	slices.SortFunc(ids, Compare)
	for i := range want {
		if ids[i].String() != want[i] {
			t.Errorf("position %d: got %s, want %s", i, ids[i], want[i])
		}
	}
}

func TestCompareIsZeroOnlyForEqual(t *testing.T) {
	a := MustParseIdent("core/x/1.0/1")
	b := MustParseIdent("core/x/1.0.0/1")
	if Compare(a, b) == 0 {
		t.Fatal("distinct idents must not compare equal")
	}
	if Compare(a, a) != 0 {
		t.Fatal("an ident must equal itself")
	}
}

func FuzzCompareVersionsTotalOrder(f *testing.F) {
	seeds := []string{"1.0", "2.0", "1.0.0", "1.0.0-alpha2", "1.0.", "1..2", "master", "2016i", "1.0.2k", "v1.2", ".", "", "18446744073709551616", "1.٣"}
	for i, a := range seeds {
		f.Add(a, seeds[(i+1)%len(seeds)], seeds[(i+5)%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := compareVersions(a, b), compareVersions(b, a)
		if ab != -ba {
			t.Fatalf("antisymmetry: cmp(%q,%q)=%d but cmp(%q,%q)=%d", a, b, ab, b, a, ba)
		}
		if compareVersions(a, a) != 0 {
			t.Fatalf("reflexivity: cmp(%q,%q) != 0", a, a)
		}
		bc, ac := compareVersions(b, c), compareVersions(a, c)
		if ab <= 0 && bc <= 0 && ac > 0 {
			t.Fatalf("transitivity: %q <= %q <= %q but cmp(a,c)=%d", a, b, c, ac)
		}
		if ab >= 0 && bc >= 0 && ac < 0 {
			t.Fatalf("transitivity: %q >= %q >= %q but cmp(a,c)=%d", a, b, c, ac)
		}
		// Agreement with Habitat wherever Habitat decides.
		if h, err := habitatCompareVersions(a, b); err == nil && h != ab {
			t.Fatalf("disagrees with Habitat on %q vs %q: %d, Habitat %d", a, b, ab, h)
		}
	})
}

func FuzzCompareIdentsTotalOrder(f *testing.F) {
	f.Add("1.0", "1", "1.0.0", "1", "1.0", "2")
	f.Add("1.0.", "2", "1.0", "1", "master", "3")
	f.Fuzz(func(t *testing.T, av, ar, bv, br, cv, cr string) {
		a := Ident{"o", "n", av, ar}
		b := Ident{"o", "n", bv, br}
		c := Ident{"o", "n", cv, cr}
		ab, ba := Compare(a, b), Compare(b, a)
		if ab != -ba {
			t.Fatalf("antisymmetry broken for %v, %v", a, b)
		}
		if (ab == 0) != (a == b) {
			t.Fatalf("Compare(%v, %v) = %d", a, b, ab)
		}
		if ab <= 0 && Compare(b, c) <= 0 && Compare(a, c) > 0 {
			t.Fatalf("transitivity broken for %v <= %v <= %v", a, b, c)
		}
	})
}
