package retention_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
var old = now.Add(-30 * 24 * time.Hour)

func scanStore(t *testing.T, b *storetest.Builder) *pkgstore.Inventory {
	t.Helper()
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// oldPkg adds a release installed long ago.
func oldPkg(b *storetest.Builder, ident string, deps ...string) {
	b.Add(storetest.Release{Ident: ident, Deps: deps, ModTime: old})
}

func plan(t *testing.T, b *storetest.Builder, pol retention.Policy) *retention.Plan {
	t.Helper()
	pol.MinAge = retention.NoMinAge // ctime is "now" on a fresh store
	p, err := retention.Compute(scanStore(t, b), pol, nil, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func decision(t *testing.T, p *retention.Plan, ident string) retention.Decision {
	t.Helper()
	d, ok := p.Decision(pkgstore.MustParseIdent(ident))
	if !ok {
		t.Fatalf("no decision for %s", ident)
	}
	return d
}

func hasCode(d retention.Decision, c retention.Code, says string) bool {
	for _, r := range d.Reasons {
		if r.Code == c && strings.Contains(r.Text, says) {
			return true
		}
	}
	return false
}

const (
	glibc1  = "core/glibc/2.34/20210101000000"
	glibc2  = "core/glibc/2.35/20220101000000"
	redis1  = "core/redis/4.0.14/20200101000000"
	redis2  = "core/redis/5.0.1/20210101000000"
	redis3  = "core/redis/6.2.6/20220101000000"
	redis3b = "core/redis/6.2.6/20220202000000"
)

// base: redis1 uses glibc1, later releases glibc2.
func base(t *testing.T) *storetest.Builder {
	b := storetest.New(t)
	oldPkg(b, glibc1)
	oldPkg(b, glibc2)
	oldPkg(b, redis1, glibc1)
	oldPkg(b, redis2, glibc2)
	oldPkg(b, redis3, glibc2)
	oldPkg(b, redis3b, glibc2)
	return b
}

func TestRules(t *testing.T) {
	type check struct {
		ident  string
		action retention.Action
		code   retention.Code
		says   string
	}
	tests := []struct {
		name   string
		setup  func(*storetest.Builder)
		policy retention.Policy
		checks []check
	}{
		{"keep latest 1", nil, retention.Policy{KeepLatest: 1}, []check{
			{redis3b, retention.Keep, retention.CodeLatest, "newest release of core/redis (1st of 1 kept)"},
			{redis3, retention.Remove, retention.CodeOld, "not among the newest 1 of core/redis"},
			{redis1, retention.Remove, retention.CodeOld, ""},
			{glibc2, retention.Keep, retention.CodeLatest, ""},
			{glibc1, retention.Remove, retention.CodeOld, ""},
		}},
		{"keep latest 0 keeps only what is needed", func(b *storetest.Builder) { b.Spec("redis", "core/redis/5.0.1") }, retention.Policy{KeepLatest: retention.KeepNone}, []check{
			{redis2, retention.Keep, retention.CodeService, "loaded service redis runs it (spec ident core/redis/5.0.1)"},
			{glibc2, retention.Keep, retention.CodeDependency, "dependency of core/redis/5.0.1/20210101000000 (loaded service redis"},
			{redis3b, retention.Remove, retention.CodeOld, "newest 0"},
			{glibc1, retention.Remove, retention.CodeOld, ""},
		}},
		{"dependency of an old release kept by count", nil, retention.Policy{KeepLatest: 3}, []check{
			{redis2, retention.Keep, retention.CodeLatest, "3rd of 3"},
			{redis1, retention.Remove, retention.CodeOld, ""},
			{glibc1, retention.Keep, retention.CodeLatest, "2nd of 3"},
		}},
		{"binlink", func(b *storetest.Builder) {
			b.Binlink("bin", "redis-cli", "/hab/pkgs/"+redis1+"/MANIFEST")
		}, retention.Policy{KeepLatest: 1}, []check{
			{redis1, retention.Keep, retention.CodeBinlink, "binlink bin/redis-cli points into it"},
			{glibc1, retention.Keep, retention.CodeDependency, "dependency of " + redis1 + " (binlink bin/redis-cli"},
		}},
		{"exclude by ident pattern", nil, retention.Policy{KeepLatest: 1, Excludes: []retention.Exclude{mustExclude(t, "core/redis/4.0.14")}}, []check{
			{redis1, retention.Keep, retention.CodeExcluded, `excluded by "core/redis/4.0.14"`},
			{redis2, retention.Remove, retention.CodeOld, ""},
		}},
		{"exclude by semver constraint", nil, retention.Policy{KeepLatest: 1, Excludes: []retention.Exclude{mustExclude(t, "core/redis@>=5 <6.2")}}, []check{
			{redis2, retention.Keep, retention.CodeExcluded, ""},
			{redis1, retention.Remove, retention.CodeOld, ""},
			{redis3, retention.Remove, retention.CodeOld, ""},
		}},
		{"constraint against a version that is not semver", func(b *storetest.Builder) {
			oldPkg(b, "core/openssl/1.0.2k/20200101000000")
			oldPkg(b, "core/openssl/1.1.1/20210101000000")
		}, retention.Policy{KeepLatest: 1, Excludes: []retention.Exclude{mustExclude(t, "core/openssl@<1.1")}}, []check{
			{"core/openssl/1.0.2k/20200101000000", retention.Keep, retention.CodeExcluded, `version 1.0.2k is not semver, so the constraint cannot judge it: kept to be safe`},
		}},
		{"habitat's own packages keep at least one", func(b *storetest.Builder) {
			oldPkg(b, "chef/hab-sup/1.6.0/20200101000000")
			oldPkg(b, "chef/hab-sup/1.6.1/20210101000000")
			oldPkg(b, "core/hab-sup/0.90.0/20190101000000")
		}, retention.Policy{KeepLatest: retention.KeepNone}, []check{
			{"chef/hab-sup/1.6.1/20210101000000", retention.Keep, retention.CodeHabitat, "Habitat's own package"},
			{"chef/hab-sup/1.6.0/20200101000000", retention.Remove, retention.CodeOld, "newest 1 of chef/hab-sup"},
			{"core/hab-sup/0.90.0/20190101000000", retention.Keep, retention.CodeHabitat, ""},
		}},
		{"self keep latest explicit", func(b *storetest.Builder) {
			oldPkg(b, "chef/hab/1.6.0/20200101000000")
			oldPkg(b, "chef/hab/1.6.1/20210101000000")
		}, retention.Policy{KeepLatest: 1, SelfKeepLatest: 2}, []check{
			{"chef/hab/1.6.0/20200101000000", retention.Keep, retention.CodeHabitat, "2nd of 2"},
		}},
		{"ambiguous versions protect every candidate", func(b *storetest.Builder) {
			oldPkg(b, "core/app/master/20240101000000")
			oldPkg(b, "core/app/1.0/20200101000000")
			b.Spec("app", "core/app")
			oldPkg(b, "core/app/v0.9/20190101000000")
		}, retention.Policy{KeepLatest: retention.KeepNone}, []check{
			{"core/app/1.0/20200101000000", retention.Keep, retention.CodeServiceMaybe, "depends on directory order"},
			{"core/app/v0.9/20190101000000", retention.Keep, retention.CodeServiceMaybe, "depends on directory order"},
			{"core/app/master/20240101000000", retention.Keep, retention.CodeServiceMaybe, "cannot order"},
		}},
		{"ident problem keeps the release", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "core/odd/1.0/20200101000000", IdentFile: "core/other/1/2\n", ModTime: old})
			oldPkg(b, "core/odd/2.0/20210101000000")
		}, retention.Policy{KeepLatest: 1}, []check{
			{"core/odd/1.0/20200101000000", retention.Keep, retention.CodeIdentProblem, "core/other/1/2"},
		}},
		{"transitive chain names every link", func(b *storetest.Builder) {
			oldPkg(b, "core/a/1/1", glibc1)
			b.Add(storetest.Release{Ident: "core/b/1/1", Deps: []string{"core/a/1/1"}, TDeps: []string{"core/a/1/1"}, ModTime: old})
			oldPkg(b, "core/b/2/2")
			oldPkg(b, "core/a/2/2")
			b.Spec("b", "core/b/1/1")
		}, retention.Policy{KeepLatest: 1}, []check{
			{glibc1, retention.Keep, retention.CodeDependency, "dependency of core/a/1/1, needed by core/b/1/1 (loaded service b"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "binlink" {
				testtool.NeedSymlinks(t) // a binlink is a symlink (on Windows Habitat writes binstubs: TestBinstub*)
			}
			b := base(t)
			if tt.setup != nil {
				tt.setup(b)
			}
			p := plan(t, b, tt.policy)
			for _, c := range tt.checks {
				d := decision(t, p, c.ident)
				if d.Action != c.action || !hasCode(d, c.code, c.says) {
					t.Errorf("%s: %s %+v; want %s with %s saying %q", c.ident, d.Action, d.Reasons, c.action, c.code, c.says)
				}
			}
		})
	}
}

// TestPlanWarnings: pins and --only that match no installed release, and
// semver pins that cannot judge a version, are reported once each.
func TestPlanWarnings(t *testing.T) {
	only := func(s ...string) []pkgstore.Ident {
		var ids []pkgstore.Ident
		for _, x := range s {
			ids = append(ids, pkgstore.MustParseIdent(x))
		}
		return ids
	}
	type want struct {
		kind retention.WarningKind
		pin  string
		says string
	}
	tests := []struct {
		name   string
		policy retention.Policy
		want   []want
	}{
		{"all match", retention.Policy{KeepLatest: 1, Excludes: []retention.Exclude{mustExclude(t, "core/redis"), mustExclude(t, "core/redis@>=5")}, Only: only("core/glibc")}, nil},
		{"typo in an exclude", retention.Policy{KeepLatest: 1, Excludes: []retention.Exclude{mustExclude(t, "core/rediss")}}, []want{
			{retention.WarnUnmatchedExclude, "core/rediss", "matches no installed release"},
		}},
		{"constraint matching no release", retention.Policy{KeepLatest: 1, Excludes: []retention.Exclude{mustExclude(t, "core/redis@>=7")}}, []want{
			{retention.WarnUnmatchedExclude, "core/redis@>=7", "matches no installed release"},
		}},
		{"typo in an only", retention.Policy{KeepLatest: 1, Only: only("core/redis", "core/glibcc")}, []want{
			{retention.WarnUnmatchedOnly, "core/glibcc", "matches no installed release"},
		}},
		{"a semver pin that cannot judge two versions warns once", retention.Policy{KeepLatest: 1, Excludes: []retention.Exclude{mustExclude(t, "core/openssl@<1.1")}}, []want{
			{retention.WarnNotSemver, "core/openssl@<1.1", "1.0.2j, 1.0.2k"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := base(t)
			oldPkg(b, "core/openssl/1.0.2j/20190101000000")
			oldPkg(b, "core/openssl/1.0.2k/20200101000000")
			oldPkg(b, "core/openssl/1.1.1/20210101000000")
			p := plan(t, b, tt.policy)
			if len(p.Warnings) != len(tt.want) {
				t.Fatalf("warnings %+v, want %d", p.Warnings, len(tt.want))
			}
			for i, w := range tt.want {
				got := p.Warnings[i]
				if got.Kind != w.kind || got.Pin != w.pin || !strings.Contains(got.Text, w.says) {
					t.Errorf("warning %+v, want %+v", got, w)
				}
			}
		})
	}
}

func mustExclude(t *testing.T, s string) retention.Exclude {
	t.Helper()
	ex, err := retention.ParseExclude(s)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func TestMinAge(t *testing.T) {
	b := base(t)
	fresh := "core/redis/7.0.0/20261130000000"
	b.Pkg(fresh) // ctime: now (the real clock)
	inv := scanStore(t, b)
	realNow := time.Now()
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: retention.KeepNone}, nil, realNow, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := decision(t, p, fresh); d.Action != retention.Keep || !hasCode(d, retention.CodeYoung, "less than the minimum age 1h0m0s") {
		t.Fatalf("fresh release: %+v", d)
	}
	// Two hours later it is old enough.
	p, _ = retention.Compute(inv, retention.Policy{KeepLatest: retention.KeepNone}, nil, realNow.Add(2*time.Hour), nil)
	if d := decision(t, p, fresh); d.Action != retention.Remove {
		t.Fatalf("fresh release after 2h: %+v", d)
	}
}

func TestOnly(t *testing.T) {
	b := base(t)
	oldPkg(b, "core/nginx/1.0/20200101000000", glibc1)
	oldPkg(b, "core/nginx/2.0/20210101000000", glibc2)
	oldPkg(b, "core/zlib/1.0/20200101000000")
	oldPkg(b, "core/zlib/2.0/20210101000000")
	p := plan(t, b, retention.Policy{KeepLatest: 1, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}})
	want := map[string]retention.Action{
		redis1: retention.Remove, redis2: retention.Remove, redis3: retention.Remove, redis3b: retention.Keep,
		// glibc1 was needed by redis1 (removed) and by nginx 1.0, which
		// is outside the Only set, so it stays.
		glibc1:                          retention.Keep,
		"core/nginx/1.0/20200101000000": retention.Keep,
		"core/zlib/1.0/20200101000000":  retention.Keep,
	}
	for id, a := range want {
		if d := decision(t, p, id); d.Action != a {
			t.Errorf("%s: %s %+v, want %s", id, d.Action, d.Reasons, a)
		}
	}
	if d := decision(t, p, "core/zlib/1.0/20200101000000"); !hasCode(d, retention.CodeOutsideOnly, "") {
		t.Errorf("zlib reasons: %+v", d.Reasons)
	}

	// Without nginx, glibc1 is needed only by redis1 and goes with it.
	b2 := base(t)
	p2 := plan(t, b2, retention.Policy{KeepLatest: 1, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}})
	if d := decision(t, p2, glibc1); d.Action != retention.Remove {
		t.Errorf("glibc1 should go with redis1: %+v", d)
	}
}

func TestDamageFailsSafe(t *testing.T) {
	b := base(t)
	b.Add(storetest.Release{Ident: "core/broken/1.0/20200101000000", Deps: []string{glibc1, "core/x/1.0"}, TDeps: []string{glibc1}, ModTime: old})
	inv := scanStore(t, b)
	_, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, now, nil)
	if !errors.Is(err, retention.ErrDamaged) {
		t.Fatalf("got %v, want ErrDamaged", err)
	}
	if !strings.Contains(err.Error(), "hab/pkgs/core/broken/1.0/20200101000000/DEPS") {
		t.Errorf("refusal does not name the damaged file: %v", err)
	}
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge, AllowDamaged: true}, nil, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := decision(t, p, "core/broken/1.0/20200101000000"); d.Action != retention.Keep || !hasCode(d, retention.CodeDamaged, "") {
		t.Errorf("damaged release: %+v", d)
	}
	if d := decision(t, p, glibc1); d.Action != retention.Keep {
		t.Errorf("what a damaged release names must be kept: %+v", d)
	}

	// A spec that cannot be parsed refuses too.
	b2 := base(t).File("hab/sup/default/specs/x.spec", "ident = [")
	if _, err := retention.Compute(scanStore(t, b2), retention.Policy{KeepLatest: 1}, nil, now, nil); !errors.Is(err, retention.ErrDamaged) {
		t.Fatalf("bad spec: got %v", err)
	}
}

func TestUninstallHook(t *testing.T) {
	b := base(t)
	b.Add(storetest.Release{Ident: "core/hooked/1.0/20200101000000", UninstallHook: true, ModTime: old})
	b.Add(storetest.Release{Ident: "core/hooked/2.0/20210101000000", UninstallHook: true, ModTime: old})
	s := storetest.Open(t, b.Root)
	inv := scanStore(t, b)
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge}, nil, now, s.HasUninstallHook)
	if err != nil {
		t.Fatal(err)
	}
	if d := decision(t, p, "core/hooked/2.0/20210101000000"); d.Action != retention.Keep || !hasCode(d, retention.CodeUninstall, "hooks/uninstall") {
		t.Errorf("hooked newest: %+v", d)
	}
	if d := decision(t, p, "core/hooked/1.0/20200101000000"); d.Action != retention.Remove {
		t.Errorf("hooked older: %+v", d)
	}
	p, _ = retention.Compute(inv, retention.Policy{KeepLatest: retention.KeepNone, MinAge: retention.NoMinAge, IgnoreUninstallHooks: true}, nil, now, s.HasUninstallHook)
	if d := decision(t, p, "core/hooked/2.0/20210101000000"); d.Action != retention.Remove {
		t.Errorf("with hooks ignored: %+v", d)
	}
}

func TestWhy(t *testing.T) {
	b := base(t).Spec("redis", "core/redis/5.0.1")
	p := plan(t, b, retention.Policy{KeepLatest: 1})
	ex, err := p.Why(pkgstore.MustParseIdent(glibc2))
	if err != nil {
		t.Fatal(err)
	}
	// glibc2 is itself the newest glibc: a root.
	if len(ex.Chain) != 1 || ex.RootReasons[0].Code != retention.CodeLatest {
		t.Fatalf("why glibc2: %+v", ex)
	}
	ex, err = p.Why(pkgstore.MustParseIdent("core/redis/5.0.1"))
	if err != nil || ex.Decision.Action != retention.Keep || ex.RootReasons[0].Code != retention.CodeService {
		t.Fatalf("why redis 5.0.1: %+v %v", ex, err)
	}
	ex, err = p.Why(pkgstore.MustParseIdent(redis1))
	if err != nil || ex.Decision.Action != retention.Remove || ex.Chain != nil {
		t.Fatalf("why redis1: %+v %v", ex, err)
	}
	if _, err := p.Why(pkgstore.MustParseIdent("core/nope/1/1")); !errors.Is(err, retention.ErrNotInstalled) {
		t.Fatalf("got %v", err)
	}
}

func TestPolicyValidation(t *testing.T) {
	for _, pol := range []retention.Policy{{KeepLatest: -2}, {KeepLatest: 1, SelfKeepLatest: -2}, {KeepLatest: 1, MinAge: -5 * time.Second}, {KeepLatest: 1, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/a/1/2")}},
		// A zero ident, or one without a name or an origin, in Only is
		// refused as in KeepLatestFor.
		{KeepLatest: 1, Only: []pkgstore.Ident{{}}}, {KeepLatest: 1, Only: []pkgstore.Ident{{Origin: "core"}}},
		{KeepLatest: 1, Only: []pkgstore.Ident{{Name: "redis"}}}, {KeepLatest: 1, Only: []pkgstore.Ident{{Origin: "core", Version: "1"}}}} {
		if err := pol.Validate(); !errors.Is(err, retention.ErrInvalidPolicy) {
			t.Errorf("%+v: got %v", pol, err)
		}
	}
	for _, s := range []string{"core", "core/redis@", "core/redis@>>1", "core/../x"} {
		if _, err := retention.ParseExclude(s); err == nil {
			t.Errorf("ParseExclude(%q) accepted", s)
		}
	}
}

func TestDeterministic(t *testing.T) {
	b := base(t).Spec("redis", "core/redis")
	inv := scanStore(t, b)
	var first []string
	for i := 0; i < 5; i++ {
		p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, nil, now, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range p.Decisions {
			s := d.Release.Ident.String() + " " + string(d.Action)
			for _, r := range d.Reasons {
				s += " " + string(r.Code) + ":" + r.Text
			}
			got = append(got, s)
		}
		if i == 0 {
			first = got
		} else if !slices.Equal(first, got) {
			t.Fatal("plans differ between runs")
		}
	}
}

// TestPlanPinsAddUp: excludes from several sources all keep what they
// match, and the plan's reasons, pins, warnings and report name each one's
// source.
func TestPlanPinsAddUp(t *testing.T) {
	pin := func(s, source string) retention.Exclude {
		ex := mustExclude(t, s)
		ex.Source = source
		return ex
	}
	b := base(t)
	oldPkg(b, "core/openssl/1.0.2j/20190101000000")
	pol := retention.Policy{KeepLatest: retention.KeepNone, Excludes: []retention.Exclude{
		pin("core/redis", "flag --exclude"),
		pin("core/openssl", `config key "exclude" in /hab/etc/hab-gc.toml`),
		pin("core/redis", `schedule "team-a" [prune] exclude`),
		pin("acme/absent", "environment variable HAB_GC_EXCLUDE"),
	}}
	p := plan(t, b, pol)
	tests := []struct {
		ident string
		texts []string
	}{
		{"core/redis", []string{`excluded by "core/redis" (flag --exclude)`, `excluded by "core/redis" (schedule "team-a" [prune] exclude)`}},
		{"core/openssl", []string{`excluded by "core/openssl" (config key "exclude" in /hab/etc/hab-gc.toml)`}},
	}
	for _, tt := range tests {
		t.Run(tt.ident, func(t *testing.T) {
			n := 0
			for _, d := range p.Decisions {
				if d.Release.Ident.Origin+"/"+d.Release.Ident.Name != tt.ident {
					continue
				}
				n++
				if d.Action != retention.Keep {
					t.Errorf("%s: %s, want keep", d.Release.Ident, d.Action)
				}
				var got []string
				for _, r := range d.Reasons {
					if r.Code == retention.CodeExcluded {
						got = append(got, r.Text)
					}
				}
				if !slices.Equal(got, tt.texts) {
					t.Errorf("%s: excluded reasons %q, want %q", d.Release.Ident, got, tt.texts)
				}
			}
			if n == 0 {
				t.Fatalf("no release of %s in the store", tt.ident)
			}
		})
	}
	rep := p.Report(nil)
	if len(rep.Pins) != 4 {
		t.Fatalf("report pins %+v, want 4", rep.Pins)
	}
	for i, ex := range pol.Excludes {
		if got := rep.Pins[i]; got.Pin != ex.Raw || got.Source != ex.Source || (got.Matches == 0) != (ex.Raw == "acme/absent") {
			t.Errorf("pin %d: %+v, want %q from %q", i, got, ex.Raw, ex.Source)
		}
	}
	if len(p.Warnings) != 1 || p.Warnings[0].Source != "environment variable HAB_GC_EXCLUDE" ||
		!strings.Contains(p.Warnings[0].Text, `exclude "acme/absent" (environment variable HAB_GC_EXCLUDE) matches no installed release`) {
		t.Errorf("warnings %+v, want one for acme/absent naming its source", p.Warnings)
	}
}
