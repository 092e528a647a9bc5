package retention

import (
	"time"

	"github.com/hab-gc/hab-gc/internal/inuse"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// SetHook makes Apply call f at each stage of a release: "checked" (its
// directory was checked, just before hiding it), "hidden" (hidden is its
// store-relative hidden name), "synced" (its hiding was made durable: its
// directory was fsynced), "deleting" (before it is examined for
// deletion: every release is examined before any is deleted),
// "removing" (examined, and about to be renamed doomed, then deleted),
// "doomed" (hidden is its doomed name, and that rename was made durable),
// "restoring" (about to be put back from hidden) and "restored" (put back,
// and that rename made durable).
func SetHook(o *ApplyOptions, f func(stage string, id pkgstore.Ident, hidden string)) { o.hook = f }

// ParseDebris is parseDebris, for its fuzz test.
func ParseDebris(name string) (kind, release string, ok bool) { return inuse.ParseDebris(name) }

// ComputeScoped is ComputeFound making a scoped plan (PlanScope's) of a
// limited policy.
func ComputeScoped(inv *pkgstore.Inventory, pol Policy, now time.Time, hooks HookFunc, found []Found) (*Plan, error) {
	return computeAt(inv, nil, pol, now, time.Time{}, hooks, found, true)
}

// DeleteWorker is the deletion worker of a release's package (workerFor).
func DeleteWorker(id pkgstore.Ident) int { return workerFor(id) }

// IsRootDisagrees returns a release of p's inventory for which a scoped
// plan's isRoot (no texts made) and rootsOf (the reasons) disagree.
func IsRootDisagrees(p *Plan) (pkgstore.Ident, bool) {
	s := &scoper{p: p, ix: p.indexRoots(), g: p.Graph, inv: p.Inventory, pkgs: map[pkgstore.Ident]*scopedPackage{}, roots: map[pkgstore.Ref][]Reason{}}
	for _, r := range p.Inventory.Releases {
		is := s.isRoot(r.Ref)
		if is != (len(s.rootsOf(r.Ref)) > 0) {
			return r.Ident, true
		}
	}
	return pkgstore.Ident{}, false
}
