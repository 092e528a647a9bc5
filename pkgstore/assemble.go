package pkgstore

import "time"

// ReleaseInfo describes a release for NewInventory.
type ReleaseInfo struct {
	Ident       Ident
	Deps, TDeps []Ident
	ModTime     time.Time
	Size        int64
}

// NewInventory assembles an inventory from releases known in memory,
// without reading a store: for programs that track their own packages,
// and for tests that need thousands of stores. Services and binlinks are
// added with AddService and AddBinlink. Idents must be fully qualified.
func NewInventory(fsRoot, target string, rels []ReleaseInfo) *Inventory {
	in := newInterner()
	var releases []*Release
	for _, ri := range rels {
		r := &Release{Ident: ri.Ident, ModTime: ri.ModTime, ChangeTime: ri.ModTime, Size: ri.Size}
		r.Ref = in.identLocked(ri.Ident)
		for _, d := range ri.Deps {
			r.Deps = append(r.Deps, in.identLocked(d))
		}
		for _, d := range ri.TDeps {
			r.TDeps = append(r.TDeps, in.identLocked(d))
		}
		releases = append(releases, r)
	}
	var probs problems
	inv := finishInventory(fsRoot, target, in, releases, &probs)
	inv.Problems = sortProblems(probs.list)
	return inv
}

// AddService records a loaded service whose spec names id, resolving it
// as the Supervisor would.
func (inv *Inventory) AddService(name string, id Ident) {
	inv.Services = append(inv.Services, inv.resolveService(Service{Name: name, SpecPath: SpecsDir + "/" + name + ".spec", Ident: id, DesiredState: "up"}))
}

// AddBinlink records a binlink at path pointing into release id.
func (inv *Inventory) AddBinlink(path string, id Ident) {
	inv.Binlinks = append(inv.Binlinks, Binlink{Path: path, Target: "/" + StoreDir + "/" + id.String() + "/bin/x",
		Release: id, InStore: true, Dangling: inv.Installed(id) == nil})
}
