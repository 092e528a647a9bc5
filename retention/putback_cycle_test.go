package retention_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// A release put back whole because a mount point
// appeared inside it during the settle brings back everything it needs,
// whatever the shape of what it needs: a cycle (core/a and core/b name
// each other in DEPS and TDEPS), a longer cycle a -> b -> c -> a, and a
// diamond hanging off it (a -> d; d -> e, f; e, f -> g). The mount
// appears on each member of the cycle in turn, so that whichever order
// Apply deletes them in, one put back is reached after what it needs.
// Before, a release of the cycle hidden before the mounted one was
// deleted first: b was put back, a deleted, and check found b's missing
// dependency.
func TestMountPutBackBringsItsCycle(t *testing.T) {
	const rel = "/1.0/20200101000000"
	id := func(name string) string { return "core/" + name + rel }
	cases := []struct {
		name  string
		deps  map[string][]string // name -> direct deps (DEPS and TDEPS alike)
		mount []string            // each member in turn gets the mount
	}{
		{"cycle", map[string][]string{"a": {"b"}, "b": {"a"}}, []string{"a", "b"}},
		{"long cycle and diamond", map[string][]string{
			"a": {"b", "d"}, "b": {"c"}, "c": {"a"},
			"d": {"e", "f"}, "e": {"g"}, "f": {"g"}, "g": nil,
		}, []string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		for _, on := range tc.mount {
			t.Run(tc.name+"/mount on "+on, func(t *testing.T) {
				b := storetest.New(t)
				var all []string
				for name, deps := range tc.deps {
					var ids []string
					for _, d := range deps {
						ids = append(ids, id(d))
					}
					// TDEPS as Habitat would write it for a cycle: every
					// release it reaches (here, DEPS' closure).
					b.Add(storetest.Release{Ident: id(name), Deps: ids, TDeps: closure(tc.deps, name, id), ModTime: old})
					oldPkg(b, "core/"+name+"/2.0/20210101000000")
					all = append(all, id(name))
				}
				p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
				if len(p.Removals()) != len(all) {
					t.Fatalf("the plan removes %d, want %d", len(p.Removals()), len(all))
				}
				mounted := false
				opts := fast
				retention.SetHook(&opts, func(stage string, ident pkgstore.Ident, hidden string) {
					if stage == "hidden" && ident.String() == id(on) {
						mounted = true
						dir := b.Path("hab/pkgs/" + hidden + "/bin")
						mountAt(t, dir, func() error { return mountTmpfs(dir) })
						t.Cleanup(func() { unmount(b.PkgPath(id(on)) + "/bin") })
					}
				})
				res := applyPlan(t, p, b.Root, opts)
				if !mounted {
					t.Fatal("the hook never ran")
				}
				if o, _ := outcome(res, id(on)); o.Status != retention.StatusKept || !hasReason(o.Reasons, codeMount, id(on)+"/bin") {
					t.Errorf("%s: %+v, want kept (%s)", id(on), o, codeMount)
				}
				for _, other := range closure(tc.deps, on, id) {
					if other == id(on) {
						continue
					}
					if o, _ := outcome(res, other); o.Status != retention.StatusKept || !hasReason(o.Reasons, retention.CodeDependency, "") {
						t.Errorf("%s: %+v, want kept (%s)", other, o, retention.CodeDependency)
					}
				}
				checkPrecious(t, b.PkgPath(id(on))+"/bin")
				wholeStore(t, b.Root, closure(tc.deps, on, id)...)
			})
		}
	}
}

// closure lists the idents name reaches in deps (name itself when a
// cycle leads back to it), in breadth-first order.
func closure(deps map[string][]string, name string, id func(string) string) []string {
	seen := map[string]bool{}
	var out []string
	queue := []string{name}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range deps[cur] {
			if !seen[d] {
				seen[d] = true
				out = append(out, id(d))
				queue = append(queue, d)
			}
		}
	}
	return out
}
