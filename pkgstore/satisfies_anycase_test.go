package pkgstore_test

import (
	"runtime"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestSatisfiesAnyCase: without regard to case on Windows only, where
// Windows opens core\redis for Core\Redis; elsewhere it is Satisfies.
func TestSatisfiesAnyCase(t *testing.T) {
	windows := runtime.GOOS == "windows"
	for _, tc := range []struct {
		id, pattern string
		want        bool
	}{
		{"core/redis/4.0.14/20200101000000", "core/redis", true},
		{"core/redis/4.0.14/20200101000000", "Core/Redis", windows},
		{"core/redis/4.0.14/20200101000000", "CORE/REDIS/4.0.14", windows},
		{"core/redis/4.0.14/20200101000000", "core/redis/5.0.0", false},
		{"core/redis/4.0.14/20200101000000", "Core/Redis/5.0.0", false},
		{"core/redis/4.0.14/20200101000000", "core/redix", false},
	} {
		id, pattern := pkgstore.MustParseIdent(tc.id), pkgstore.MustParseIdent(tc.pattern)
		if got := id.SatisfiesAnyCase(pattern); got != tc.want {
			t.Errorf("%s.SatisfiesAnyCase(%s) = %v, want %v", tc.id, tc.pattern, got, tc.want)
		}
	}
}
