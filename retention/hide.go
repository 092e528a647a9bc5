package retention

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

type keptError struct{ reason Reason }

// hide renames a release directory to a pending debris name in its
// VERSION directory, after checking that it is still the planned one.
func (a *applier) hide(r *pkgstore.Release) (hiddenRelease, error) {
	rel := r.Path()
	fi, err := a.root.Lstat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return hiddenRelease{}, &keptError{Reason{CodeGone, "no longer installed"}}
		}
		return hiddenRelease{}, fmt.Errorf("checking %s: %w", rel, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return hiddenRelease{}, &keptError{Reason{CodeChanged, "its directory was replaced by a " + fileKind(fi.Mode()) + " since the plan; left alone"}}
	}
	if dev, ino := pkgstore.DirID(a.root, rel, fi); dev != r.Dev || ino != r.Ino {
		return hiddenRelease{}, &keptError{Reason{CodeChanged, "its directory was replaced since the plan was made"}}
	}
	if held := a.heldFile(rel); held != "" {
		// Windows: a process holds a file of it open (a running program,
		// a loaded DLL), which Windows would not let go.
		return hiddenRelease{}, &keptError{Reason{CodeInUse, "a process holds " + held + " open, so that Windows would not let it be deleted (a running program or a loaded DLL): in use, kept"}}
	}
	dir := path.Dir(rel)
	name := debrisName(dir, "pending", r.Ident.Release)
	a.stage("checked", r.Ident, "")
	if err := a.root.Rename(rel, name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Uninstalled (hab pkg uninstall) since the check above.
			return hiddenRelease{}, &keptError{Reason{CodeGone, "no longer installed (removed by someone else just before hab-gc hid it)"}}
		}
		if heldOpen(err) {
			return hiddenRelease{}, &keptError{Reason{CodeInUse, heldOpenText + " (" + err.Error() + ")"}}
		}
		return hiddenRelease{}, fmt.Errorf("hiding %s: %w", rel, err)
	}
	return hiddenRelease{rel: r, name: name}, nil
}

// syncWorkers bounds the directories Apply fsyncs at once.
const syncWorkers = 16

// hideBatch is what Apply hid since it last synced: the releases, their
// VERSION directories (each once) and every release they need (DEPS and
// TDEPS).
type hideBatch struct {
	hidden []hiddenRelease
	dirs   []string
	seen   map[string]bool
	needs  map[pkgstore.Ident]bool
}

func (b *hideBatch) add(h hiddenRelease) {
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	b.hidden = append(b.hidden, h)
	if dir := path.Dir(h.name); !b.seen[dir] {
		b.seen[dir] = true
		b.dirs = append(b.dirs, dir)
	}
}

// need records what the release ref of graph g needs.
func (b *hideBatch) need(g *depgraph.Graph, ref pkgstore.Ref) {
	if b.needs == nil {
		b.needs = map[pkgstore.Ident]bool{}
	}
	inv := g.Inventory()
	for _, d := range g.Deps(ref) {
		b.needs[inv.Ident(d)] = true
	}
}

// sync makes a batch of renames durable: it fsyncs each directory a
// release of the batch was renamed in, tells the hook stage of each
// ("synced" for hidings), then empties the batch. Apply calls it before
// it hides a release that one of the batch needs (so that after a crash,
// whatever survives of the renames, no listed release needs a hidden one)
// and once all are hidden, before the settle pause. With hideOrder's
// layers, that is one batch per layer: the directories of a batch share a
// journal commit (on ext4, the first fsync commits them all), and their
// fsyncs overlap. Dooming and putting back batch their renames the same
// way.
func (a *applier) sync(b *hideBatch, stage string) {
	a.syncDirs(b.dirs)
	for _, h := range b.hidden {
		a.stage(stage, h.rel.Ident, h.name)
	}
	*b = hideBatch{}
}

// syncDirs fsyncs the directories (store-relative) concurrently: an fsync
// mostly waits for the disk (a cache flush each, even when the journal is
// already committed), and the disk serves several at once. All are done
// when it returns.
func (a *applier) syncDirs(list []string) {
	dirs := make(chan string)
	var wg sync.WaitGroup
	for range min(len(list), syncWorkers) {
		wg.Go(func() {
			for dir := range dirs {
				a.syncDir(dir)
			}
		})
	}
	for _, dir := range list {
		dirs <- dir
	}
	close(dirs)
	wg.Wait()
}

func (a *applier) syncDir(dir string) {
	if f, err := a.store.Root().Open(safeio.Dir(dir)); err == nil { // never a FIFO swapped in
		f.Sync()
		f.Close()
	}
}

// putBackAll puts each release of hs back, in that order, for why[i],
// and returns what became of each (a copy Habitat installed again
// meanwhile stays, and the hidden one goes). The renames are made durable
// in batches, each batch's VERSION directories synced together
// (syncDirs), all before it returns: a release is reported kept only once
// it is listed for good. A batch is synced before a release that needs
// one of it is put back, so that, put back dependencies first, doomed
// releases come back without a listed release ever needing a doomed one,
// whatever a power loss keeps of the renames.
func (a *applier) putBackAll(hs []hiddenRelease, why []Reason) []RemovalOutcome {
	out := make([]RemovalOutcome, len(hs))
	var batch hideBatch
	put := map[pkgstore.Ident]bool{} // put back since the last sync
	for i, h := range hs {
		a.phase(PhasePutBack, i, len(hs))
		if slices.ContainsFunc(h.deps, func(d pkgstore.Ident) bool { return put[d] }) {
			a.sync(&batch, "restored")
			clear(put)
		}
		a.stage("restoring", h.rel.Ident, h.name)
		var renamed bool
		if out[i], renamed = a.putBackOne(h, why[i]); renamed {
			batch.add(h)
			put[h.rel.Ident] = true
		}
	}
	a.sync(&batch, "restored")
	if len(hs) > 0 {
		a.phase(PhasePutBack, len(hs), len(hs))
	}
	return out
}

// putBackOne renames a hidden release back (renamed; not synced), unless
// Habitat installed it again meanwhile: then the new copy stays and the
// hidden one is deleted, or left to the next run when stopping.
func (a *applier) putBackOne(h hiddenRelease, why Reason) (_ RemovalOutcome, renamed bool) {
	rel := h.rel.Path()
	if _, err := a.root.Lstat(rel); err == nil {
		if a.ctx.Err() != nil {
			return RemovalOutcome{Ident: h.rel.Ident, Status: StatusKept, Reasons: []Reason{why, {CodeNewDependent, "Habitat installed it again meanwhile; that copy stays, and the next run removes the hidden one"}}}, false
		}
		a.destroy(h.name, h.rel.Ident.Release, false)
		return RemovalOutcome{Ident: h.rel.Ident, Status: StatusKept, Reasons: []Reason{why, {CodeNewDependent, "Habitat installed it again meanwhile; that copy stays"}}}, false
	}
	if err := a.root.Rename(h.name, rel); err != nil {
		return RemovalOutcome{Ident: h.rel.Ident, Status: StatusFailed,
			Err: &ReleaseError{Ident: h.rel.Ident, Op: "restore", Err: fmt.Errorf("needed again (%s) but could not be restored from %s: %w", why.Text, h.name, err)}}, false
	}
	return RemovalOutcome{Ident: h.rel.Ident, Status: StatusKept, Reasons: []Reason{why}}, true
}

// restoreAll puts every hidden release back for why and reports each.
func (a *applier) restoreAll(hs []hiddenRelease, why Reason) {
	whys := make([]Reason, len(hs))
	for i := range whys {
		whys[i] = why
	}
	for _, o := range a.putBackAll(hs, whys) {
		a.done(o)
	}
}

func fileKind(m fs.FileMode) string { return safeio.Kind(m) }
