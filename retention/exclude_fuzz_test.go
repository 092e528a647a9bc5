package retention

import (
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/hab-gc/hab-gc/pkgstore"
)

func FuzzParseExclude(f *testing.F) {
	for _, s := range []string{"core/redis", "core/redis/6.2.6", "core/pg@>=11 <12", "core/pg@", "core@1", "a/b@~1.2, !=1.2.3"} {
		f.Add(s, "1.2.3")
		f.Add(s, "1.0.2k")
	}
	f.Fuzz(func(t *testing.T, s, version string) {
		ex, err := ParseExclude(s)
		if err != nil {
			return
		}
		id := pkgstore.Ident{Origin: ex.Pattern.Origin, Name: ex.Pattern.Name, Version: version, Release: "1"}
		ok, note := ex.match(id)
		if ex.Constraint == nil {
			// A plain pattern pins exactly what satisfies it.
			if ok != id.Satisfies(ex.Pattern) || note != "" {
				t.Fatalf("%q on %v: ok=%v note=%q", s, id, ok, note)
			}
			return
		}
		// A version that is not semver cannot be judged by a constraint: it
		// is pinned (fail safe), and the plan is told why (when the pattern
		// itself matches).
		if _, err := semver.NewVersion(version); err != nil && id.Satisfies(ex.Pattern) {
			if !ok || note == "" {
				t.Fatalf("%q on non-semver %q: ok=%v note=%q", s, version, ok, note)
			}
		}
	})
}
