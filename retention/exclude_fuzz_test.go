package retention

import (
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
)

func FuzzParseExclude(f *testing.F) {
	for _, s := range []string{"core/redis", "core/redis/6.2.6", "core/pg@>=11 <12", "core/pg@", "core@1", "a/b@~1.2, !=1.2.3"} {
		f.Add(s, "1.2.3")
	}
	f.Fuzz(func(t *testing.T, s, version string) {
		ex, err := ParseExclude(s)
		if err != nil {
			return
		}
		id := pkgstore.Ident{Origin: ex.Pattern.Origin, Name: ex.Pattern.Name, Version: version, Release: "1"}
		// Matching never panics, and a non-semver version never matches a
		// constraint.
		ok, note := ex.match(id)
		if ok && note != "" {
			t.Fatalf("matched with a note: %q", note)
		}
	})
}
