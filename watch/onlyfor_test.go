package watch

import (
	"runtime"
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestOnlyForCase: an --only entry is a package's when it names it
// exactly and, where names are case-insensitive (Windows, run under Wine
// by .ci/run), in another case too; elsewhere another case is another
// package, and its purge is out of scope.
func TestOnlyForCase(t *testing.T) {
	id := pkgstore.MustParseIdent
	only := []pkgstore.Ident{id("CORE/Redis"), id("core/nginx/1.2.3"), id("other/x")}
	w := &watcher{o: Options{Policy: retention.Policy{KeepLatest: 1, Only: only}}}
	folds := runtime.GOOS == "windows"
	for _, tc := range []struct {
		pkg  string
		want []string // where names are case-sensitive
		fold []string // where they are not
	}{
		{"core/redis", nil, []string{"CORE/Redis"}},
		{"CORE/Redis", []string{"CORE/Redis"}, []string{"CORE/Redis"}},
		{"core/nginx", []string{"core/nginx/1.2.3"}, []string{"core/nginx/1.2.3"}},
		{"Core/Nginx", nil, []string{"core/nginx/1.2.3"}},
		{"core/other", nil, nil},
	} {
		want := tc.want
		if folds {
			want = tc.fold
		}
		var got []string
		for _, o := range w.onlyFor(id(tc.pkg)) {
			got = append(got, o.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s (GOOS %s): onlyFor %v, want %v", tc.pkg, runtime.GOOS, got, want)
		}
	}
}
