package artifactcache_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestStateOfCase: where the store folds case (Windows), an archive whose
// IDENT names an installed release in another case is that release's:
// kept when the plan keeps it, removed with it; elsewhere it names a
// release that is not installed. An ident that is another release in any
// case is not installed everywhere.
func TestStateOfCase(t *testing.T) {
	const (
		old1, new1 = "core/redis/7.0.0/20210101000000", "core/redis/7.0.0/20220101000000"
	)
	inv := pkgstore.NewInventory("", "x86_64-windows", []pkgstore.ReleaseInfo{
		{Ident: pkgstore.MustParseIdent(old1)}, {Ident: pkgstore.MustParseIdent(new1)}})
	plan, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	folds := runtime.GOOS == "windows"
	pick := func(folded, exact artifactcache.ReleaseState) artifactcache.ReleaseState {
		if folds {
			return folded
		}
		return exact
	}
	state := artifactcache.StateOf(plan, false)
	for _, c := range []struct {
		ident string
		want  artifactcache.ReleaseState
	}{
		{new1, artifactcache.Kept},
		{old1, artifactcache.Removed},
		{"Core/Redis/7.0.0/20220101000000", pick(artifactcache.Kept, artifactcache.NotInstalled)},
		{"CORE/REDIS/7.0.0/20210101000000", pick(artifactcache.Removed, artifactcache.NotInstalled)},
		{"Core/Redis/7.0.0/20230101000000", artifactcache.NotInstalled},
	} {
		if got := state(pkgstore.MustParseIdent(c.ident)); got != c.want {
			t.Errorf("StateOf(%s) = %d, want %d", c.ident, got, c.want)
		}
	}
}
