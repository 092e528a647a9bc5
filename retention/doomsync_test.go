package retention_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestApplyDoomsDependentsFirst: Apply renames every release it deletes
// to a doomed name before it deletes any (so that the doomed renames
// share their fsyncs), and a doomed directory is deleted by the next run
// whatever needs it, so the doomed rename of a release is made durable
// ("doomed") before anything it needs is renamed ("removing" comes just
// before the rename): after a crash, a release still hidden under its
// pending name, which the next run may put back, never needs a doomed
// one. Releases that need none of each other share a sync: one per layer.
func TestApplyDoomsDependentsFirst(t *testing.T) {
	root := testtool.TempDir(t)
	b := storetest.At(t, root)
	needs := map[string][]string{}
	for _, v := range []string{"1/20200101000000", "2/20210101000000"} {
		z, m := "core/z/"+v, "core/m/"+v
		rels := []storetest.Release{
			{Ident: z},
			{Ident: m, Deps: []string{z}},
			{Ident: "core/a/" + v, Deps: []string{m}, TDeps: []string{m, z}},
			{Ident: "core/b/" + v, TDeps: []string{z}},
			{Ident: "core/i/" + v},
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
	if n := len(p.Removals()); n != 5 {
		t.Fatalf("the plan removes %d releases, want 5", n)
	}
	type event struct{ stage, ident, name string }
	var events []event
	opts := fast
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, name string) {
		events = append(events, event{stage, id.String(), name})
	})
	if res := applyPlan(t, p, root, opts); res.Removed != 5 {
		t.Fatalf("removed %d, want 5: %+v", res.Removed, res.Outcomes)
	}
	at := func(stage, ident string) int {
		return slices.IndexFunc(events, func(e event) bool { return e.stage == stage && e.ident == ident })
	}
	lastDeleting := -1
	for i, e := range events {
		if e.stage == "deleting" {
			lastDeleting = i
		}
	}
	syncs, inSync := 0, false
	for _, e := range events {
		if e.stage == "doomed" && !inSync {
			syncs++
		}
		inSync = e.stage == "doomed"
	}
	for r, deps := range needs {
		removing, doomed := at("removing", r), at("doomed", r)
		if removing < lastDeleting || doomed < removing {
			t.Errorf("%s: removing at event %d, doomed at %d, the last survey at %d", r, removing, doomed, lastDeleting)
			continue
		}
		if name := events[doomed].name; !strings.HasPrefix(name[strings.LastIndexByte(name, '/')+1:], pkgstore.DebrisPrefix+"doomed-") {
			t.Errorf("%s doomed as %s", r, name)
		}
		for _, d := range deps {
			if at("removing", d) < doomed {
				t.Errorf("%s, which %s needs, was about to be doomed (event %d) before %s's doomed rename was synced (event %d)", d, r, at("removing", d), r, doomed)
			}
		}
	}
	// Three layers: a, b and i; m; z.
	if syncs != 3 {
		t.Errorf("%d syncs of doomed renames, want 3, one per layer", syncs)
	}
	if t.Failed() {
		t.Logf("events: %v", events)
	}
}
