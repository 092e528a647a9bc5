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

// hide renames a release directory still the planned one to a pending
// debris name in its VERSION directory.
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
		return hiddenRelease{}, &keptError{Reason{CodeInUse, "a process holds " + held + " open, so that Windows would not let it be deleted (a running program or a loaded DLL): in use, kept"}}
	}
	dir := path.Dir(rel)
	name := debrisName(dir, "pending", r.Ident.Release)
	a.stage("checked", r.Ident, "")
	if err := a.root.Rename(rel, name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return hiddenRelease{}, &keptError{Reason{CodeGone, "no longer installed (removed by someone else just before hab-gc hid it)"}}
		}
		if heldOpen(err) {
			return hiddenRelease{}, &keptError{Reason{CodeInUse, heldOpenText + " (" + err.Error() + ")"}}
		}
		return hiddenRelease{}, fmt.Errorf("hiding %s: %w", rel, err)
	}
	return hiddenRelease{rel: r, name: name}, nil
}

const syncWorkers = 16

// hideBatch is what Apply renamed since it last synced, and what it needs.
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

func (b *hideBatch) need(g *depgraph.Graph, ref pkgstore.Ref) {
	if b.needs == nil {
		b.needs = map[pkgstore.Ident]bool{}
	}
	inv := g.Inventory()
	for _, d := range g.Deps(ref) {
		b.needs[inv.Ident(d)] = true
	}
}

// sync makes a batch of renames durable. Called before renaming a release
// the batch needs, so whatever a crash keeps of the renames, no listed
// release needs a hidden one: one batch per hideOrder layer, whose fsyncs
// share a journal commit.
func (a *applier) sync(b *hideBatch, stage string) {
	a.syncDirs(b.dirs)
	for _, h := range b.hidden {
		a.stage(stage, h.rel.Ident, h.name)
	}
	*b = hideBatch{}
}

// syncDirs fsyncs the directories concurrently (an fsync mostly waits on
// the disk, which serves several at once).
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

// putBackAll puts hs back in order, for why[i], durable before it
// returns; a batch is synced before putting back a release that needs one
// of it, so dependencies-first put-backs survive a power loss in order.
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

// putBackOne renames a hidden release back (not synced), unless Habitat
// installed it again meanwhile: then the hidden one goes.
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
