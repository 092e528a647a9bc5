package retention_test

import (
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestSelfKeepCount: a user's self-keep-latest is 1 or more; 0 would be
// the library's "unset" (chef/hab never removed), so it is refused
// rather than read as a keep of none.
func TestSelfKeepCount(t *testing.T) {
	for _, tc := range []struct {
		in, want int
		ok       bool
	}{{1, 1, true}, {3, 3, true}, {0, 0, false}, {-1, 0, false}} {
		got, err := retention.SelfKeepCount(tc.in)
		if tc.ok != (err == nil) || got != tc.want || (err != nil && !errors.Is(err, retention.ErrSelfKeepZero)) {
			t.Errorf("SelfKeepCount(%d) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err == nil {
			if verr := (retention.Policy{KeepLatest: 1, SelfKeepLatest: got}).Validate(); verr != nil {
				t.Errorf("SelfKeepCount(%d) = %d, which Validate refuses: %v", tc.in, got, verr)
			}
		}
	}
}

// TestCheckPackageCounts: per-package counts name origin/names, each
// once, not Habitat's own, with a count set; Validate refuses the same
// counts with the same error.
func TestCheckPackageCounts(t *testing.T) {
	pc := func(s string) retention.PackageCount {
		c, err := retention.ParsePackageCount(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name   string
		counts []retention.PackageCount
		ok     bool
	}{
		{"none", nil, true},
		{"two packages", []retention.PackageCount{pc("core/redis=2"), pc("core/postgresql=0")}, true},
		{"twice", []retention.PackageCount{pc("core/redis=2"), pc("core/redis=3")}, false},
		{"chef/hab", []retention.PackageCount{pc("chef/hab=2")}, false},
		{"core/hab-sup", []retention.PackageCount{pc("core/hab-sup=2")}, false},
		{"a version", []retention.PackageCount{{Package: pkgstore.MustParseIdent("core/redis/1.0"), Keep: 1}}, false},
		{"no count", []retention.PackageCount{{Package: pkgstore.MustParseIdent("core/redis")}}, false},
		{"below KeepNone", []retention.PackageCount{{Package: pkgstore.MustParseIdent("core/redis"), Keep: -2}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := retention.CheckPackageCounts(tc.counts)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, retention.ErrInvalidPolicy)) {
				t.Fatalf("CheckPackageCounts: %v, want ok %v", err, tc.ok)
			}
			verr := retention.Policy{KeepLatest: 1, KeepLatestFor: tc.counts}.Validate()
			if (verr == nil) != (err == nil) || (err != nil && verr.Error() != err.Error()) {
				t.Fatalf("Validate: %v; CheckPackageCounts: %v", verr, err)
			}
		})
	}
}
