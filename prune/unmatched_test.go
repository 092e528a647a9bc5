package prune

import (
	"slices"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestUnmatchedRefusals: of the warnings about settings that match
// nothing installed, exactly those the caller says were given on the
// command line refuse, each asked about under its setting's key (an
// exclude with its own source); other warnings never refuse.
func TestUnmatchedRefusals(t *testing.T) {
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "core/redis/6.2.6/20220101000000"})
	store := storetest.Open(t, b.Root)
	pin := func(s, source string) retention.Exclude {
		ex, err := retention.ParsePin(s)
		if err != nil {
			t.Fatal(err)
		}
		ex.Source = source
		return ex
	}
	count, err := retention.ParsePackageCount("core/absent=2")
	if err != nil {
		t.Fatal(err)
	}
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge,
		Excludes:      []retention.Exclude{pin("core/nope", "flag --exclude"), pin("core/other", "hab-gc.toml"), pin("core/redis", "flag --exclude")},
		Only:          []pkgstore.Ident{pkgstore.MustParseIdent("core/missing")},
		KeepLatestFor: []retention.PackageCount{count}}
	plan, err := retention.PlanStore(t.Context(), store, pol, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	given := func(keys ...string) func(key, source string) bool {
		return func(key, source string) bool {
			asked = append(asked, key+" "+source)
			return slices.Contains(keys, key) && (key != SettingExclude || source == "flag --exclude")
		}
	}
	for _, tc := range []struct {
		name string
		keys []string
		want []retention.WarningKind
		pins []string
	}{
		{"nothing on the command line", nil, nil, nil},
		{"excludes: the flag's alone", []string{SettingExclude}, []retention.WarningKind{retention.WarnUnmatchedExclude}, []string{"core/nope"}},
		{"only", []string{SettingOnly}, []retention.WarningKind{retention.WarnUnmatchedOnly}, []string{"core/missing"}},
		{"keep-latest-for", []string{SettingKeepLatestFor}, []retention.WarningKind{retention.WarnUnmatchedKeepLatestFor}, []string{"core/absent=2"}},
		{"all", []string{SettingExclude, SettingOnly, SettingKeepLatestFor},
			[]retention.WarningKind{retention.WarnUnmatchedExclude, retention.WarnUnmatchedOnly, retention.WarnUnmatchedKeepLatestFor}, []string{"core/nope", "core/missing", "core/absent=2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked = nil
			var kinds []retention.WarningKind
			var pins []string
			for _, w := range unmatchedRefusals(plan, given(tc.keys...)) {
				kinds, pins = append(kinds, w.Kind), append(pins, w.Pin)
			}
			slices.Sort(kinds)
			want := slices.Sorted(slices.Values(tc.want))
			slices.Sort(pins)
			wantPins := slices.Sorted(slices.Values(tc.pins))
			if !slices.Equal(kinds, want) || !slices.Equal(pins, wantPins) {
				t.Errorf("refusals %v %v, want %v %v (warnings %+v)", kinds, pins, want, wantPins, plan.Warnings)
			}
			wantAsked := []string{"exclude flag --exclude", "exclude hab-gc.toml", "keep_latest_for ", "only "}
			slices.Sort(asked)
			if !slices.Equal(asked, wantAsked) {
				t.Errorf("asked about %q, want %q", asked, wantAsked)
			}
		})
	}
	if unmatchedRefusals(nil, given(SettingOnly)) != nil || unmatchedRefusals(plan, nil) != nil {
		t.Error("a nil plan or predicate refused something")
	}
}
