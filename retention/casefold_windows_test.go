//go:build windows

package retention_test

import (
	"context"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestApplyWindowsCaseOnly: on Windows, `run --only CORE/Redis
// --keep-latest-for Core/REDIS=2` on a store whose directory is core\redis
// removes what it would for core/redis, as Windows opens core\redis for
// CORE\Redis (and `hab pkg uninstall CORE/Redis` lists its releases:
// habitat-sh/habitat components/core/src/package/list.rs
// package_list_for_ident): the oldest of core/redis goes, the newest 2
// stay by the count, core/nginx stays outside the scope. Before, both
// entries compared exactly and the run removed nothing.
func TestApplyWindowsCaseOnly(t *testing.T) {
	const nginx1, nginx2 = "core/nginx/1.0.0/20200101000000", "core/nginx/1.0.0/20210101000000"
	b := windowsStore(t)
	b.Add(storetest.Release{Ident: nginx1, Target: "x86_64-windows", ModTime: old},
		storetest.Release{Ident: nginx2, Target: "x86_64-windows", ModTime: old})
	o, err := retention.ParseOnly("CORE/Redis")
	if err != nil {
		t.Fatal(err)
	}
	c, err := retention.ParsePackageCount("Core/REDIS=2")
	if err != nil {
		t.Fatal(err)
	}
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, Only: []pkgstore.Ident{o}, KeepLatestFor: []retention.PackageCount{c}}
	s, p := openPlan(t, b.Root, pol, now, pkgstore.Options{Target: "x86_64-windows"})
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %v, want none", p.Warnings)
	}
	res, err := p.Apply(context.Background(), s, fast)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 1 || exists(b.PkgPath(redis1)) {
		t.Errorf("result %+v, want %s removed, nothing else", res, redis1)
	}
	for _, kept := range []string{redis2, redis3, nginx1, nginx2} {
		if !exists(b.PkgPath(kept)) {
			t.Errorf("%s was removed", kept)
		}
	}
}
