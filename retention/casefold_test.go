package retention_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// storeFoldsCase: a store read on Windows folds case (pkgstore/fold.go);
// elsewhere names differ in case are different directories.
var storeFoldsCase = runtime.GOOS == "windows"

// caseWant is what a plan of a caseStore removes, the warnings it gives,
// and words a kept release's reasons hold (release -> words).
type caseWant struct {
	removed []string
	warns   []retention.WarningKind
	says    map[string]string
}

// TestCaseFoldedNames: an Only entry, a loaded service's spec ident
// (ServicesOnly) and a KeepLatestFor entry written in another case than
// the store's directories name those directories where the store folds
// case (Windows: `--only CORE/Redis` limits removals to core\redis, which
// Windows opens for it; a count for CORE/redis keeps that many of
// core\redis), and nothing elsewhere (Linux: CORE/redis is another
// directory, none here, and the entry is warned about, as before). The
// stores are made in memory (pkgstore.NewInventory folds as a scan
// does): Wine cannot make two directories whose names differ only in
// case, which a case-sensitive directory on Windows can hold.
func TestCaseFoldedNames(t *testing.T) {
	const (
		r1, r2 = "core/redis/6.2.5/20200101000000", "core/redis/6.2.5/20200201000000"
		r3, r4 = "core/redis/7.0.0/20210101000000", "core/redis/7.0.0/20210201000000"
		n1, n2 = "core/nginx/1/20200101000000", "core/nginx/1/20210101000000"
		// U1, U2: a second spelling of core/redis, as only a
		// case-sensitive directory holds beside core\redis.
		u1, u2 = "Core/Redis/7.0.0/20210301000000", "Core/Redis/7.0.0/20210401000000"
	)
	std := []string{r1, r2, r3, r4, n1, n2}
	two := []string{r1, r2, r3, r4, u1, u2}
	only := func(ids ...string) []pkgstore.Ident {
		var out []pkgstore.Ident
		for _, id := range ids {
			o, err := retention.ParseOnly(id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
		return out
	}
	count := func(s string) retention.PackageCount {
		c, err := retention.ParsePackageCount(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const (
		unmatchedOnly  = retention.WarnUnmatchedOnly
		unmatchedCount = retention.WarnUnmatchedKeepLatestFor
	)
	for _, c := range []struct {
		name          string
		store         []string
		spec          string // the redis service's spec ident, "" for none
		pol           retention.Policy
		exact, folded caseWant
	}{
		{name: "only in the store's case", store: std,
			pol:    retention.Policy{KeepLatest: 1, Only: only("core/redis")},
			exact:  caseWant{removed: []string{r1, r2, r3}},
			folded: caseWant{removed: []string{r1, r2, r3}}},
		{name: "only in another case", store: std,
			pol:    retention.Policy{KeepLatest: 1, Only: only("CORE/Redis")},
			exact:  caseWant{warns: []retention.WarningKind{unmatchedOnly}, says: map[string]string{r1: "not among the packages this run is limited to (CORE/Redis)"}},
			folded: caseWant{removed: []string{r1, r2, r3}, says: map[string]string{n1: "not among the packages this run is limited to (CORE/Redis)"}}},
		{name: "only a version in another case keeps its newest", store: std,
			pol:    retention.Policy{KeepLatest: 1, Only: only("Core/REDIS/6.2.5")},
			exact:  caseWant{warns: []retention.WarningKind{unmatchedOnly}},
			folded: caseWant{removed: []string{r1}, says: map[string]string{r2: "newest release of core/redis/6.2.5"}}},
		{name: "only in the store's case and in another", store: std,
			pol:    retention.Policy{KeepLatest: 1, Only: only("core/nginx", "CORE/REDIS")},
			exact:  caseWant{removed: []string{n1}, warns: []retention.WarningKind{unmatchedOnly}},
			folded: caseWant{removed: []string{r1, r2, r3, n1}}},
		{name: "services-only, a spec in another case", store: std, spec: "Core/Redis/6.2.5",
			pol:    retention.Policy{KeepLatest: 1, ServicesOnly: true},
			exact:  caseWant{},
			folded: caseWant{removed: []string{r1}, says: map[string]string{r2: "loaded service redis runs it"}}},
		{name: "keep-latest-for in another case", store: std,
			pol:    retention.Policy{KeepLatest: 1, KeepLatestFor: []retention.PackageCount{count("CORE/redis=3")}},
			exact:  caseWant{removed: []string{r1, r2, r3, n1}, warns: []retention.WarningKind{unmatchedCount}},
			folded: caseWant{removed: []string{r1, n1}, says: map[string]string{r2: "by keep-latest-for CORE/redis=3 (3rd of 3 kept)"}}},
		{name: "keep-latest-for in another case, smaller than keep-latest", store: std,
			pol:    retention.Policy{KeepLatest: 3, KeepLatestFor: []retention.PackageCount{count("CORE/redis=1")}},
			exact:  caseWant{removed: []string{r1}, warns: []retention.WarningKind{unmatchedCount}},
			folded: caseWant{removed: []string{r1, r2, r3}}},
		{name: "keep-latest-for in the store's case comes first", store: std,
			pol:    retention.Policy{KeepLatest: 1, KeepLatestFor: []retention.PackageCount{count("CORE/REDIS=4"), count("core/redis=2")}},
			exact:  caseWant{removed: []string{r1, r2, n1}, warns: []retention.WarningKind{unmatchedCount}},
			folded: caseWant{removed: []string{r1, r2, n1}}},
		{name: "of two counts in other cases the larger", store: std,
			pol:    retention.Policy{KeepLatest: 1, KeepLatestFor: []retention.PackageCount{count("CORE/REDIS=2"), count("Core/Redis=3")}},
			exact:  caseWant{removed: []string{r1, r2, r3, n1}, warns: []retention.WarningKind{unmatchedCount, unmatchedCount}},
			folded: caseWant{removed: []string{r1, n1}, says: map[string]string{r2: "keep-latest-for Core/Redis=3"}}},
		{name: "only with keep-latest-for, both in another case", store: std,
			pol:    retention.Policy{KeepLatest: 1, Only: only("CORE/REDIS"), KeepLatestFor: []retention.PackageCount{count("Core/Redis=2")}},
			exact:  caseWant{warns: []retention.WarningKind{unmatchedOnly, unmatchedCount}},
			folded: caseWant{removed: []string{r1, r2}}},
		// Two spellings: where the store folds case, a third one names
		// neither directory (Windows opens the exact name alone there).
		{name: "two spellings: only in a third", store: two,
			pol:    retention.Policy{KeepLatest: 1, Only: only("CORE/REDIS")},
			exact:  caseWant{warns: []retention.WarningKind{unmatchedOnly}},
			folded: caseWant{warns: []retention.WarningKind{unmatchedOnly}}},
		{name: "two spellings: only in one of them", store: two,
			pol:    retention.Policy{KeepLatest: 1, Only: only("Core/Redis")},
			exact:  caseWant{removed: []string{u1}},
			folded: caseWant{removed: []string{u1}}},
		{name: "two spellings: a count in a third keeps more of each", store: two,
			pol:    retention.Policy{KeepLatest: 1, KeepLatestFor: []retention.PackageCount{count("CORE/REDIS=3")}},
			exact:  caseWant{removed: []string{r1, r2, r3, u1}, warns: []retention.WarningKind{unmatchedCount}},
			folded: caseWant{removed: []string{r1}, says: map[string]string{u1: "keep-latest-for CORE/REDIS=3, which names Core/Redis, core/redis"}}},
		{name: "two spellings: a count in a third never keeps fewer", store: two,
			pol:    retention.Policy{KeepLatest: 2, KeepLatestFor: []retention.PackageCount{count("CORE/REDIS=1")}},
			exact:  caseWant{removed: []string{r1, r2}, warns: []retention.WarningKind{unmatchedCount}},
			folded: caseWant{removed: []string{r1, r2}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rels []pkgstore.ReleaseInfo
			for _, id := range c.store {
				rels = append(rels, pkgstore.ReleaseInfo{Ident: pkgstore.MustParseIdent(id)})
			}
			inv := pkgstore.NewInventory("", "x86_64-linux", rels)
			// The premise: the inventory folds case where the test says.
			if got := inv.Installed(pkgstore.MustParseIdent(strings.ToUpper(r1))) != nil; got != storeFoldsCase {
				t.Fatalf("Installed(%s) found a release: %v, want %v", strings.ToUpper(r1), got, storeFoldsCase)
			}
			if c.spec != "" {
				inv.AddService("redis", pkgstore.MustParseIdent(c.spec))
			}
			want := c.exact
			if storeFoldsCase {
				want = c.folded
			}
			pol := c.pol
			pol.MinAge = retention.NoMinAge
			p, err := retention.Compute(inv, pol, nil, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), nil)
			if err != nil {
				t.Fatal(err)
			}
			var removed []string
			for _, d := range p.Removals() {
				removed = append(removed, d.Release.Ident.String())
			}
			slices.Sort(removed)
			slices.Sort(want.removed)
			if !slices.Equal(removed, want.removed) {
				t.Errorf("removed %v, want %v", removed, want.removed)
			}
			var kinds []retention.WarningKind
			for _, w := range p.Warnings {
				kinds = append(kinds, w.Kind)
			}
			if !slices.Equal(kinds, want.warns) {
				t.Errorf("warnings %v, want %v", p.Warnings, want.warns)
			}
			for id, words := range want.says {
				d, _ := p.Decision(pkgstore.MustParseIdent(id))
				var texts []string
				for _, r := range d.Reasons {
					texts = append(texts, r.Text)
				}
				if !strings.Contains(strings.Join(texts, "; "), words) {
					t.Errorf("%s: %s %q, want a reason saying %q", id, d.Action, texts, words)
				}
			}
		})
	}
}

// TestCaseFoldedOnlyWarning: an Only entry that names releases in two
// spellings, none its own, says so where the store folds case; elsewhere
// it matches nothing, as any unmatched entry.
func TestCaseFoldedOnlyWarning(t *testing.T) {
	inv := pkgstore.NewInventory("", "x86_64-linux", []pkgstore.ReleaseInfo{
		{Ident: pkgstore.MustParseIdent("core/redis/7.0.0/20210101000000")},
		{Ident: pkgstore.MustParseIdent("Core/Redis/7.0.0/20210201000000")}})
	o, err := retention.ParseOnly("CORE/REDIS")
	if err != nil {
		t.Fatal(err)
	}
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, Only: []pkgstore.Ident{o}}, nil, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `only "CORE/REDIS" matches no installed release, so this run removes nothing of it`
	if storeFoldsCase {
		want = `only "CORE/REDIS" names releases in several spellings (Core/Redis, core/redis), in a case-sensitive directory where Windows opens the exact name alone, so this run removes nothing of them`
	}
	if len(p.Warnings) != 1 || p.Warnings[0].Text != want || p.Warnings[0].Kind != retention.WarnUnmatchedOnly {
		t.Fatalf("warnings %+v, want one: %s", p.Warnings, want)
	}
	if n := len(p.Removals()); n != 0 {
		t.Errorf("%d removals, want none", n)
	}
}
