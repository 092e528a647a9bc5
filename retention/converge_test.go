package retention_test

import (
	"slices"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// crashAt applies p but "crashes" (the hook panics, leaving the disk as a
// kill would) after k releases are hidden.
func crashAt(t *testing.T, p *retention.Plan, root string, k int) (crashed bool) {
	t.Helper()
	opts := fast
	n := 0
	retention.SetHook(&opts, func(stage string, _ pkgstore.Ident, _ string) {
		if stage == "hidden" {
			if n++; n == k {
				panic("crash")
			}
		}
	})
	defer func() {
		if r := recover(); r != nil {
			crashed = true
		}
	}()
	applyPlan(t, p, root, opts)
	return false
}

// TestApplyCrashConverges: after a crash at any point of hiding, ONE run
// leaves exactly what a clean run leaves. The store's dependencies run
// against inventory order (core/a needs core/m needs core/z; core/b needs
// core/c through TDEPS only), so hiding in reverse inventory order would
// hide a dependency while its dependent is still listed.
func TestApplyCrashConverges(t *testing.T) {
	template := testtool.TempDir(t)
	b := storetest.At(t, template)
	for _, r := range []storetest.Release{
		{Ident: "core/z/1/20200101000000"},
		{Ident: "core/m/1/20200101000000", Deps: []string{"core/z/1/20200101000000"}},
		{Ident: "core/a/1/20200101000000", Deps: []string{"core/m/1/20200101000000"}},
		{Ident: "core/c/1/20200101000000"},
		{Ident: "core/b/1/20200101000000", TDeps: []string{"core/c/1/20200101000000"}},
		{Ident: "core/z/2/20210101000000"},
		{Ident: "core/m/2/20210101000000", Deps: []string{"core/z/2/20210101000000"}},
		{Ident: "core/a/2/20210101000000", Deps: []string{"core/m/2/20210101000000"}},
		{Ident: "core/c/2/20210101000000"},
		{Ident: "core/b/2/20210101000000", TDeps: []string{"core/c/2/20210101000000"}},
	} {
		r.ModTime = old
		b.Add(r)
	}
	pol := retention.Policy{KeepLatest: 1}
	clean := testtool.TempDir(t)
	copyTree(t, template, clean)
	planAndApply(t, clean, pol, fast)
	want, _ := listed(t, clean)
	if len(want) != 5 {
		t.Fatalf("a clean run left %d releases", len(want))
	}
	removals := len(planAt(t, template, pol).Removals())
	for k := 1; k <= removals; k++ {
		root := testtool.TempDir(t)
		copyTree(t, template, root)
		if !crashAt(t, planAt(t, root, pol), root, k) {
			t.Fatalf("crash %d: never crashed", k)
		}
		planAndApply(t, root, pol, fast)
		got, other := listed(t, root)
		if len(other) != 0 || !slices.Equal(keys(got), keys(want)) {
			t.Errorf("crash after %d hidden: one more run left %v and %v, a clean run %v", k, keys(got), other, keys(want))
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestApplyDependencyCycle: releases in a dependency cycle are all hidden
// and removed once (the order handles cycles).
func TestApplyDependencyCycle(t *testing.T) {
	b := storetest.New(t)
	for _, r := range []storetest.Release{
		{Ident: "core/a/1/20200101000000", Deps: []string{"core/b/1/20200101000000"}, TDeps: []string{"core/b/1/20200101000000"}},
		{Ident: "core/b/1/20200101000000", Deps: []string{"core/a/1/20200101000000"}, TDeps: []string{"core/a/1/20200101000000"}},
		{Ident: "core/x/1/20200101000000", Deps: []string{"core/a/1/20200101000000"}},
		{Ident: "core/a/2/20210101000000"}, {Ident: "core/b/2/20210101000000"}, {Ident: "core/x/2/20210101000000"},
	} {
		r.ModTime = old
		b.Add(r)
	}
	_, res := planAndApply(t, b.Root, retention.Policy{KeepLatest: 1}, fast)
	if res.Removed != 3 || len(res.Outcomes) != 3 {
		t.Fatalf("%+v", res)
	}
}
