package retention_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// scopeStore: core/redis in three versions (6.2.5's oldest release needs
// core/lib/1, which nothing else needs), core/lib, and core/nginx, which no
// spec loads. spec is the redis spec's ident ("" for no spec).
func scopeStore(t *testing.T, spec string) *storetest.Builder {
	b := storetest.New(t)
	oldPkg(b, "core/lib/1/20200101000000")
	oldPkg(b, "core/lib/2/20210101000000")
	oldPkg(b, "core/redis/6.2.5/20200101000000", "core/lib/1/20200101000000")
	oldPkg(b, "core/redis/6.2.5/20200201000000")
	oldPkg(b, "core/redis/6.2.5/20200301000000")
	oldPkg(b, "core/redis/6.2.6/20200401000000")
	oldPkg(b, "core/redis/6.2.6/20200501000000")
	oldPkg(b, "core/redis/7.0/20210101000000")
	oldPkg(b, "core/nginx/1/20190101000000")
	oldPkg(b, "core/nginx/1/20200101000000")
	oldPkg(b, "core/nginx/1/20210101000000")
	if spec != "" {
		b.Spec("redis", spec)
	}
	return b
}

type want struct {
	action retention.Action
	code   retention.Code
	says   string
}

var (
	K = func(c retention.Code, says string) want { return want{retention.Keep, c, says} }
	R = func(c retention.Code, says string) want { return want{retention.Remove, c, says} }
)

// TestServicesOnlyAndNoDeps: each case states the whole plan of
// scopeStore, release by release.
func TestServicesOnlyAndNoDeps(t *testing.T) {
	const (
		lib1, lib2          = "core/lib/1/20200101000000", "core/lib/2/20210101000000"
		r1, r2, r3          = "core/redis/6.2.5/20200101000000", "core/redis/6.2.5/20200201000000", "core/redis/6.2.5/20200301000000"
		r4, r5, r7          = "core/redis/6.2.6/20200401000000", "core/redis/6.2.6/20200501000000", "core/redis/7.0/20210101000000"
		n1, n2, n3          = "core/nginx/1/20190101000000", "core/nginx/1/20200101000000", "core/nginx/1/20210101000000"
		outside, superseded = retention.CodeOutsideOnly, retention.CodeOld
	)
	for _, c := range []struct {
		name  string
		spec  string
		pol   retention.Policy
		plan  map[string]want
		warns []retention.WarningKind
	}{
		{"store-wide, for contrast", "core/redis/6.2.5", retention.Policy{KeepLatest: 1}, map[string]want{
			lib1: R(superseded, ""), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: K(retention.CodeService, ""),
			r4: R(superseded, ""), r5: R(superseded, ""), r7: K(retention.CodeLatest, ""),
			n1: R(superseded, ""), n2: R(superseded, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"services-only: the pinned version's oldest and what only they needed", "core/redis/6.2.5", retention.Policy{KeepLatest: 1, ServicesOnly: true}, map[string]want{
			lib1: R(retention.CodeFreed, "loaded services' packages (core/redis/6.2.5)"), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: K(retention.CodeLatest, "newest release of core/redis/6.2.5 (1st of 1 kept)"),
			r4: K(outside, "core/redis/6.2.5"), r5: K(outside, ""), r7: K(retention.CodeLatest, "newest release of core/redis (1st of 1 kept)"),
			n1: K(outside, ""), n2: K(outside, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		// What only r1 needed goes whatever core/lib's count: the
		// Supervisor's purge (uninstall_many in habitat-sh/habitat
		// components/hab/src/command/pkg/uninstall/uninstall_impl.rs)
		// removes every dependency with no reverse dependency outside the
		// removal.
		{"services-only, keep 2: the newest 2 of 6.2.5, and what only r1 needed", "core/redis/6.2.5", retention.Policy{KeepLatest: 2, ServicesOnly: true}, map[string]want{
			lib1: R(retention.CodeFreed, "core/redis/6.2.5"), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: K(retention.CodeLatest, "newest release of core/redis/6.2.5 (2nd of 2 kept)"), r3: K(retention.CodeLatest, "core/redis/6.2.5 (1st of 2 kept)"),
			r4: K(outside, ""), r5: K(retention.CodeLatest, "core/redis (2nd of 2 kept)"), r7: K(retention.CodeLatest, ""),
			n1: K(outside, ""), n2: K(retention.CodeLatest, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"services-only, no-deps: the freed dependency stays", "core/redis/6.2.5", retention.Policy{KeepLatest: 1, ServicesOnly: true, NoDeps: true}, map[string]want{
			lib1: K(retention.CodeNoDeps, "hab pkg uninstall --no-deps"), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: K(retention.CodeLatest, "core/redis/6.2.5"),
			r4: K(outside, ""), r5: K(outside, ""), r7: K(retention.CodeLatest, ""),
			n1: K(outside, ""), n2: K(outside, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"no-deps with only: only's freed dependency stays", "", retention.Policy{KeepLatest: 1, NoDeps: true, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}}, map[string]want{
			lib1: K(retention.CodeNoDeps, "core/redis"), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: R(superseded, ""),
			r4: R(superseded, ""), r5: R(superseded, ""), r7: K(retention.CodeLatest, ""),
			n1: K(outside, ""), n2: K(outside, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"only, keep 2: only's freed dependency stays by its count", "", retention.Policy{KeepLatest: 2, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}}, map[string]want{
			lib1: K(retention.CodeLatest, "core/lib (2nd of 2 kept)"), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: R(superseded, ""),
			r4: R(superseded, ""), r5: K(retention.CodeLatest, ""), r7: K(retention.CodeLatest, ""),
			n1: K(outside, ""), n2: K(retention.CodeLatest, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"only, keep 2, free-deps: only's freed dependency goes whatever its count", "", retention.Policy{KeepLatest: 2, FreeDeps: true, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}}, map[string]want{
			lib1: R(retention.CodeFreed, "core/redis"), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: R(superseded, ""),
			r4: R(superseded, ""), r5: K(retention.CodeLatest, ""), r7: K(retention.CodeLatest, ""),
			n1: K(outside, ""), n2: K(retention.CodeLatest, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"free-deps with no-deps: no-deps wins", "", retention.Policy{KeepLatest: 2, FreeDeps: true, NoDeps: true, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}}, map[string]want{
			lib1: K(retention.CodeLatest, "core/lib (2nd of 2 kept)"), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: R(superseded, ""),
			r4: R(superseded, ""), r5: K(retention.CodeLatest, ""), r7: K(retention.CodeLatest, ""),
			n1: K(outside, ""), n2: K(retention.CodeLatest, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		// Store-wide, free-deps takes the count from the older releases of
		// a package others need (core/lib/1, which only the removed
		// core/redis/6.2.5/1 needs); the newest of each stays.
		{"store-wide, keep 2, free-deps: an old dependency copy nothing uses goes", "", retention.Policy{KeepLatest: 2, FreeDeps: true}, map[string]want{
			lib1: R(retention.CodeUnusedDep, "older release of core/lib"), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: R(superseded, ""),
			r4: R(superseded, ""), r5: K(retention.CodeLatest, ""), r7: K(retention.CodeLatest, ""),
			n1: R(superseded, ""), n2: K(retention.CodeLatest, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"store-wide, keep 2, free-deps: a copy a kept release needs stays", "", retention.Policy{KeepLatest: 2, FreeDeps: true, Excludes: []retention.Exclude{mustExclude(t, r1)}}, map[string]want{
			lib1: K(retention.CodeDependency, "core/redis/6.2.5/20200101000000"), lib2: K(retention.CodeLatest, ""),
			r1: K(retention.CodeExcluded, ""), r2: R(superseded, ""), r3: R(superseded, ""),
			r4: R(superseded, ""), r5: K(retention.CodeLatest, ""), r7: K(retention.CodeLatest, ""),
			n1: R(superseded, ""), n2: K(retention.CodeLatest, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"no-deps alone, keep 2: store-wide, the pinned spec's version keeps 2", "core/redis/6.2.5", retention.Policy{KeepLatest: 2, NoDeps: true}, map[string]want{
			lib1: K(retention.CodeLatest, ""), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: K(retention.CodeLatest, "newest release of core/redis/6.2.5 (2nd of 2 kept)"), r3: K(retention.CodeLatest, ""),
			r4: R(superseded, ""), r5: K(retention.CodeLatest, ""), r7: K(retention.CodeLatest, ""),
			n1: R(superseded, ""), n2: K(retention.CodeLatest, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"services-only, unpinned spec: every version of core/redis", "core/redis", retention.Policy{KeepLatest: 1, ServicesOnly: true}, map[string]want{
			lib1: R(retention.CodeFreed, ""), lib2: K(retention.CodeLatest, ""),
			r1: R(superseded, ""), r2: R(superseded, ""), r3: R(superseded, ""),
			r4: R(superseded, ""), r5: R(superseded, ""), r7: K(retention.CodeService, ""),
			n1: K(outside, ""), n2: K(outside, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"services-only, fully qualified spec: nothing but that release is in scope", r2, retention.Policy{KeepLatest: 1, ServicesOnly: true}, map[string]want{
			lib1: K(outside, ""), lib2: K(retention.CodeLatest, ""),
			r1: K(outside, ""), r2: K(retention.CodeService, ""), r3: K(outside, ""),
			r4: K(outside, ""), r5: K(outside, ""), r7: K(retention.CodeLatest, ""),
			n1: K(outside, ""), n2: K(outside, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"services-only and only another package: nothing in both", "core/redis/6.2.5", retention.Policy{KeepLatest: 1, ServicesOnly: true, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/nginx")}}, map[string]want{
			lib1: K(outside, ""), lib2: K(retention.CodeLatest, ""),
			r1: K(outside, ""), r2: K(outside, ""), r3: K(retention.CodeLatest, ""),
			r4: K(outside, ""), r5: K(outside, ""), r7: K(retention.CodeLatest, ""),
			n1: K(outside, "core/nginx; loaded services' packages (core/redis/6.2.5)"), n2: K(outside, ""), n3: K(retention.CodeLatest, ""),
		}, nil},
		{"services-only without a loaded service: nothing, with a warning", "", retention.Policy{KeepLatest: 1, ServicesOnly: true}, map[string]want{
			lib1: K(outside, "none loaded"), lib2: K(retention.CodeLatest, ""),
			r1: K(outside, ""), r2: K(outside, ""), r3: K(outside, ""),
			r4: K(outside, ""), r5: K(outside, ""), r7: K(retention.CodeLatest, ""),
			n1: K(outside, ""), n2: K(outside, ""), n3: K(retention.CodeLatest, ""),
		}, []retention.WarningKind{retention.WarnNoServices}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plan(t, scopeStore(t, c.spec), c.pol)
			if len(p.Decisions) != len(c.plan) {
				t.Fatalf("%d decisions, the case states %d", len(p.Decisions), len(c.plan))
			}
			for ident, w := range c.plan {
				d := decision(t, p, ident)
				if d.Action != w.action || !hasCode(d, w.code, w.says) {
					t.Errorf("%s: %s %v, want %s with %s saying %q", ident, d.Action, d.Reasons, w.action, w.code, w.says)
				}
			}
			var kinds []retention.WarningKind
			for _, w := range p.Warnings {
				kinds = append(kinds, w.Kind)
			}
			if !slices.Equal(kinds, c.warns) {
				t.Errorf("warnings %v, want %v", p.Warnings, c.warns)
			}
		})
	}
}

// TestKeepLatestFor: a per-package count overrides KeepLatest for its
// package only; its reasons name it; an entry for a package not installed
// warns like an unmatched pin.
func TestKeepLatestFor(t *testing.T) {
	b := storetest.New(t)
	pg := []string{}
	for i := 1; i <= 6; i++ {
		id := "core/postgresql/11." + itoa(i) + "/2020010" + itoa(i) + "000000"
		oldPkg(b, id)
		pg = append(pg, id)
	}
	redis := []string{"core/redis/6.2.5/20200101000000", "core/redis/6.2.5/20200201000000", "core/redis/6.2.5/20200301000000"}
	for _, id := range redis {
		oldPkg(b, id)
	}
	count := func(s string) retention.PackageCount {
		c, err := retention.ParsePackageCount(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, c := range []struct {
		name  string
		pol   retention.Policy
		plan  map[string]want
		warns []retention.WarningKind
	}{
		{"postgresql=5 over keep-latest 1", retention.Policy{KeepLatest: 1, KeepLatestFor: []retention.PackageCount{count("core/postgresql=5")}}, map[string]want{
			pg[0]: R(retention.CodeOld, "not among the newest 5 of core/postgresql (keep-latest-for core/postgresql=5)"),
			pg[1]: K(retention.CodeLatest, "newest release of core/postgresql, by keep-latest-for core/postgresql=5 (5th of 5 kept)"),
			pg[2]: K(retention.CodeLatest, ""), pg[3]: K(retention.CodeLatest, ""), pg[4]: K(retention.CodeLatest, ""),
			pg[5]:    K(retention.CodeLatest, "(1st of 5 kept)"),
			redis[0]: R(retention.CodeOld, "not among the newest 1 of core/redis, not protected"), redis[1]: R(retention.CodeOld, ""),
			redis[2]: K(retention.CodeLatest, "newest release of core/redis (1st of 1 kept)"),
		}, nil},
		{"redis=0 keeps none of core/redis by count, postgresql=2", retention.Policy{KeepLatest: 3, KeepLatestFor: []retention.PackageCount{count("core/redis=0"), count("core/postgresql=2")}}, map[string]want{
			pg[0]: R(retention.CodeOld, "keep-latest-for core/postgresql=2"), pg[1]: R(retention.CodeOld, ""), pg[2]: R(retention.CodeOld, ""), pg[3]: R(retention.CodeOld, ""),
			pg[4]: K(retention.CodeLatest, "(2nd of 2 kept)"), pg[5]: K(retention.CodeLatest, ""),
			redis[0]: R(retention.CodeOld, "keep-latest-for core/redis=0"), redis[1]: R(retention.CodeOld, ""), redis[2]: R(retention.CodeOld, ""),
		}, nil},
		{"an entry for a package not installed warns and changes nothing", retention.Policy{KeepLatest: 2, KeepLatestFor: []retention.PackageCount{count("core/postgresq=5")}}, map[string]want{
			pg[0]: R(retention.CodeOld, ""), pg[1]: R(retention.CodeOld, ""), pg[2]: R(retention.CodeOld, ""), pg[3]: R(retention.CodeOld, ""),
			pg[4]: K(retention.CodeLatest, "(2nd of 2 kept)"), pg[5]: K(retention.CodeLatest, ""),
			redis[0]: R(retention.CodeOld, ""), redis[1]: K(retention.CodeLatest, ""), redis[2]: K(retention.CodeLatest, ""),
		}, []retention.WarningKind{retention.WarnUnmatchedKeepLatestFor}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plan(t, b, c.pol)
			if len(p.Decisions) != len(c.plan) {
				t.Fatalf("%d decisions, the case states %d", len(p.Decisions), len(c.plan))
			}
			for ident, w := range c.plan {
				d := decision(t, p, ident)
				if d.Action != w.action || !hasCode(d, w.code, w.says) {
					t.Errorf("%s: %s %v, want %s with %s saying %q", ident, d.Action, d.Reasons, w.action, w.code, w.says)
				}
			}
			var kinds []retention.WarningKind
			for _, w := range p.Warnings {
				kinds = append(kinds, w.Kind)
				if !w.Unmatched() {
					t.Errorf("warning %v is not Unmatched", w)
				}
			}
			if !slices.Equal(kinds, c.warns) {
				t.Errorf("warnings %v, want %v", p.Warnings, c.warns)
			}
		})
	}
}

// TestKeepLatestForWithServicesOnly: the spec's pinned version keeps the
// package's own count.
func TestKeepLatestForWithServicesOnly(t *testing.T) {
	b := scopeStore(t, "core/redis/6.2.5")
	c, err := retention.ParsePackageCount("core/redis=2")
	if err != nil {
		t.Fatal(err)
	}
	p := plan(t, b, retention.Policy{KeepLatest: 1, ServicesOnly: true, KeepLatestFor: []retention.PackageCount{c}})
	for ident, w := range map[string]want{
		"core/redis/6.2.5/20200101000000": R(retention.CodeOld, "keep-latest-for core/redis=2"),
		"core/redis/6.2.5/20200201000000": K(retention.CodeLatest, "newest release of core/redis/6.2.5, by keep-latest-for core/redis=2 (2nd of 2 kept)"),
		"core/nginx/1/20200101000000":     K(retention.CodeOutsideOnly, ""),
	} {
		d := decision(t, p, ident)
		if d.Action != w.action || !hasCode(d, w.code, w.says) {
			t.Errorf("%s: %s %v, want %s with %s saying %q", ident, d.Action, d.Reasons, w.action, w.code, w.says)
		}
	}
}

func TestParsePackageCount(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		keep int
		ok   bool
	}{
		{"core/postgresql=5", "core/postgresql", 5, true},
		{" core/redis = 2 ", "core/redis", 2, true},
		{"core/redis=0", "core/redis", retention.KeepNone, true},
		{"core/redis", "", 0, false},
		{"core/redis=", "", 0, false},
		{"core/redis=-1", "", 0, false},
		{"core/redis=two", "", 0, false},
		{"core/redis/6.2.5=2", "", 0, false},
		{"redis=2", "", 0, false},
		{"core/../x=2", "", 0, false},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := retention.ParsePackageCount(c.in)
			if (err == nil) != c.ok {
				t.Fatalf("ParsePackageCount(%q) = %v, %v; ok=%v", c.in, got, err, c.ok)
			}
			if c.ok && (got.Package.String() != c.want || got.Keep != c.keep) {
				t.Errorf("ParsePackageCount(%q) = %v (keep %d), want %s keep %d", c.in, got, got.Keep, c.want, c.keep)
			}
		})
	}
}

func TestKeepLatestForValidate(t *testing.T) {
	pc := func(pkg string, n int) retention.PackageCount {
		return retention.PackageCount{Package: pkgstore.MustParseIdent(pkg), Keep: n}
	}
	for _, c := range []struct {
		name string
		for_ []retention.PackageCount
	}{
		{"twice", []retention.PackageCount{pc("core/redis", 2), pc("core/redis", 3)}},
		{"Habitat's own", []retention.PackageCount{pc("chef/hab-sup", 2)}},
		{"chef/hab", []retention.PackageCount{pc("chef/hab", 2)}},
		{"a version", []retention.PackageCount{pc("core/redis/6.2.5", 2)}},
		{"unset count", []retention.PackageCount{pc("core/redis", 0)}},
		{"negative", []retention.PackageCount{pc("core/redis", -2)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := retention.Policy{KeepLatest: 1, KeepLatestFor: c.for_}.Validate()
			if !errors.Is(err, retention.ErrInvalidPolicy) {
				t.Errorf("Validate = %v, want ErrInvalidPolicy", err)
			}
		})
	}
	if err := (retention.Policy{KeepLatest: 1, KeepLatestFor: []retention.PackageCount{pc("core/redis", 2), pc("core/pg", retention.KeepNone)}}).Validate(); err != nil {
		t.Errorf("Validate refuses a good policy: %v", err)
	}
}
