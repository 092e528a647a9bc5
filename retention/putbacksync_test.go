package retention_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestCancelPutsBackInBatchesDependenciesFirst: a run cancelled once its
// releases are doomed puts them all back, and a doomed directory is
// deleted by the next run whatever needs it, so the put-back of a release
// is made durable ("restored") before anything that needs it is renamed
// back ("restoring" comes just before the rename): after a power loss, no
// listed release needs a doomed one. The renames are synced in batches,
// not one release at a time: releases that need none of each other share
// a sync, one per layer.
func TestCancelPutsBackInBatchesDependenciesFirst(t *testing.T) {
	t.Parallel()
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type event struct{ stage, ident string }
	var events []event
	opts := retention.ApplyOptions{Settle: -1}
	doomed := 0
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, _ string) {
		events = append(events, event{stage, id.String()})
		if stage == "doomed" {
			if doomed++; doomed == 5 {
				cancel()
			}
		}
	})
	res, _ := p.Apply(ctx, storetest.Open(t, root), opts)
	if res.Kept != 5 {
		t.Fatalf("kept %d, want all 5 put back: %+v", res.Kept, res.Outcomes)
	}
	at := func(stage, ident string) int {
		return slices.Index(events, event{stage, ident})
	}
	syncs, inSync := 0, false
	for _, e := range events {
		if e.stage == "restored" && !inSync {
			syncs++
		}
		inSync = e.stage == "restored"
	}
	for r, deps := range needs {
		restoring, restored := at("restoring", r), at("restored", r)
		if restoring < 0 || restored < restoring {
			t.Errorf("%s: restoring at event %d, restored at %d", r, restoring, restored)
		}
		for _, d := range deps {
			if at("restored", d) > restoring {
				t.Errorf("%s was renamed back (event %d) before %s, which it needs, was synced back (event %d)", r, restoring, d, at("restored", d))
			}
		}
	}
	// Three layers: z; m; a, b and i.
	if syncs != 3 {
		t.Errorf("%d syncs of put-backs, want 3, one per layer", syncs)
	}
	if t.Failed() {
		t.Logf("events: %v", events)
	}
}
