package retention

import (
	"os"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// putBack is the set of hidden releases Apply puts back, with why: those
// something needs, and everything they need among the hidden (their
// closure over DEPS and TDEPS), so that a release put back never comes
// back without a dependency hidden in the same run or left hidden by an
// interrupted one.
type putBack struct {
	why map[pkgstore.Ident]Reason
}

func newPutBack() *putBack { return &putBack{why: map[pkgstore.Ident]Reason{}} }

// reason reports whether id is put back, and why.
func (b *putBack) reason(id pkgstore.Ident) (Reason, bool) {
	r, ok := b.why[id]
	return r, ok
}

// want puts id back for why (the first reason stays), then everything it
// needs among hidden, transitively: deps gives what a release needs,
// hidden whether a release is hidden (and not yet deleted).
func (b *putBack) want(id pkgstore.Ident, why Reason, deps func(pkgstore.Ident) []pkgstore.Ident, hidden func(pkgstore.Ident) bool) {
	if _, ok := b.why[id]; ok {
		return
	}
	b.why[id] = why
	queue := []pkgstore.Ident{id}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range deps(cur) {
			if _, ok := b.why[d]; ok || !hidden(d) {
				continue
			}
			b.why[d] = Reason{CodeDependency, "needed by " + cur.String() + ", which was put back (" + string(b.why[cur].Code) + "); hidden in the same run, it comes back with it"}
			queue = append(queue, d)
		}
	}
}

// keepNeeds puts back everything id needs among hidden, transitively
// (want's closure), but not id itself: a release that could not be
// doomed stays hidden under its pending name, which the next run may put
// back, so what it needs must stay.
func (b *putBack) keepNeeds(id pkgstore.Ident, deps func(pkgstore.Ident) []pkgstore.Ident, hidden func(pkgstore.Ident) bool) {
	for _, d := range deps(id) {
		if _, ok := b.why[d]; ok || !hidden(d) {
			continue
		}
		b.want(d, Reason{CodeDependency, "needed by " + id.String() + ", which could not be renamed for deletion and stays hidden (the next run puts it back if something needs it); hidden in the same run, it comes back"}, deps, hidden)
	}
}

// depsOf returns what an installed release needs (DEPS and TDEPS), as
// idents of its inventory.
func depsOf(inv *pkgstore.Inventory, r *pkgstore.Release) []pkgstore.Ident {
	var out []pkgstore.Ident
	for _, refs := range [2][]pkgstore.Ref{r.Deps, r.TDeps} {
		for _, ref := range refs {
			out = append(out, inv.Ident(ref))
		}
	}
	return out
}

// maxDepsFile bounds what is read of a hidden release's DEPS or TDEPS.
const maxDepsFile = 1 << 20

// hiddenDeps reads what a hidden directory (store-relative) names in its
// DEPS and TDEPS files (regular files only, never through a symlink),
// skipping lines that are not fully qualified idents. Files that cannot
// be read name nothing.
func hiddenDeps(root *os.Root, dir string) []pkgstore.Ident {
	var out []pkgstore.Ident
	for _, name := range []string{"DEPS", "TDEPS"} {
		b, err := safeio.ReadFileAt(root, dir+"/"+name, maxDepsFile, safeio.NoFollow)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if id, err := pkgstore.ParseFullIdent(strings.TrimSpace(line)); err == nil {
				out = append(out, id)
			}
		}
	}
	return out
}
