package retention_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestApplySyncsHidingsDependentsFirst: Apply fsyncs the directories of
// the releases it hid in batches, not one release at a time, but the
// hiding of a release is made durable ("synced") before anything it needs
// is hidden ("checked" comes just before the rename), so that a crash
// that loses unsynced renames never leaves a listed release that needs a
// hidden one; and every hidden release is synced before the first is
// deleted. Releases that need none of each other share a sync.
func TestApplySyncsHidingsDependentsFirst(t *testing.T) {
	root := testtool.TempDir(t)
	b := storetest.At(t, root)
	// needs: release -> what it needs among the removals (DEPS, and
	// TDEPS only for core/b).
	needs := map[string][]string{}
	for _, v := range []string{"1/20200101000000", "2/20210101000000"} {
		z, m, c := "core/z/"+v, "core/m/"+v, "core/c/"+v
		rels := []storetest.Release{
			{Ident: z},
			{Ident: m, Deps: []string{z}},
			{Ident: "core/a/" + v, Deps: []string{m}, TDeps: []string{m, z}},
			{Ident: c},
			{Ident: "core/b/" + v, TDeps: []string{c}},
			{Ident: "core/q/" + v},
			{Ident: "core/p/" + v, Deps: []string{"core/q/" + v}},
			{Ident: "core/s/" + v},
			{Ident: "core/r/" + v, Deps: []string{"core/s/" + v}},
		}
		for i := range 6 {
			rels = append(rels, storetest.Release{Ident: fmt.Sprintf("core/i%d/%s", i, v)})
		}
		for _, r := range rels {
			r.ModTime = old
			b.Add(r)
			if v[0] == '1' {
				needs[r.Ident] = append(r.Deps, r.TDeps...)
			}
		}
	}
	p := planAt(t, root, retention.Policy{KeepLatest: 1})
	if n := len(p.Removals()); n != 15 {
		t.Fatalf("the plan removes %d releases, want 15", n)
	}
	type event struct{ stage, ident string }
	var events []event
	opts := fast
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, _ string) {
		events = append(events, event{stage, id.String()})
	})
	if res := applyPlan(t, p, root, opts); res.Removed != 15 {
		t.Fatalf("removed %d, want 15: %+v", res.Removed, res.Outcomes)
	}
	at := func(stage, ident string) int {
		return slices.Index(events, event{stage, ident})
	}
	firstDelete := slices.IndexFunc(events, func(e event) bool { return e.stage == "deleting" })
	syncs, inSync := 0, false
	for _, e := range events {
		if e.stage == "synced" && !inSync {
			syncs++
		}
		inSync = e.stage == "synced"
	}
	hidden := 0
	for r, deps := range needs {
		if at("hidden", r) < 0 {
			t.Errorf("%s was never hidden", r)
			continue
		}
		hidden++
		synced := at("synced", r)
		if synced < 0 || synced > firstDelete {
			t.Errorf("%s: synced at event %d, the first deletion at %d", r, synced, firstDelete)
		}
		for _, d := range deps {
			if checked := at("checked", d); synced < 0 || checked < synced {
				t.Errorf("%s, which %s needs, was about to be hidden (event %d) before %s's hiding was synced (event %d)", d, r, checked, r, synced)
			}
		}
	}
	// Three layers: what nothing needs (a, b, p, r and the i), what only
	// those need (m, c, q, s), then z; one sync each. (In plain
	// topological order, p, q, r, s come one after another: 4 syncs.)
	if syncs != 3 {
		t.Errorf("%d syncs for %d hidden releases, want 3, one per layer", syncs, hidden)
	}
	if t.Failed() {
		t.Logf("events: %v", events)
	}
}
