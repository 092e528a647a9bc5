package retention

import (
	"os"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// putBack is what Apply puts back, with why: what something needs and its
// closure among the hidden, so a release never comes back without a
// dependency.
type putBack struct {
	why map[pkgstore.Ident]Reason
}

func newPutBack() *putBack { return &putBack{why: map[pkgstore.Ident]Reason{}} }

func (b *putBack) reason(id pkgstore.Ident) (Reason, bool) {
	r, ok := b.why[id]
	return r, ok
}

// want puts id back for why (the first reason stays), and its closure.
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

// keepNeeds puts back id's closure but not id, which stays pending for the
// next run.
func (b *putBack) keepNeeds(id pkgstore.Ident, deps func(pkgstore.Ident) []pkgstore.Ident, hidden func(pkgstore.Ident) bool) {
	for _, d := range deps(id) {
		if _, ok := b.why[d]; ok || !hidden(d) {
			continue
		}
		b.want(d, Reason{CodeDependency, "needed by " + id.String() + ", which could not be renamed for deletion and stays hidden (the next run puts it back if something needs it); hidden in the same run, it comes back"}, deps, hidden)
	}
}

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

// hiddenDeps reads a hidden directory's DEPS and TDEPS (regular files,
// never through a symlink); what cannot be read names nothing.
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
