package retention

import (
	"fmt"
	"os"
	"path"

	"github.com/hab-gc/hab-gc/internal/onefs"
)

// remover is what deleting keeps from one release to the next: the
// store's directory, opened once, and a chain of the directories below it
// (onefs.Chain), so that deleting a release opens only the directories
// its path does not share with the one before, each from its parent's
// descriptor, and checks the chain on the descriptors before each step
// instead of resolving the path from the store's root again.
type remover struct {
	top   *os.File
	chain *onefs.Chain
	bufs  *onefs.Buffers // directory entries, for every walk
}

// chain returns the remover's chain, started at the store's directory
// when first needed.
func (a *applier) chain() (*onefs.Chain, error) {
	if a.rm.chain == nil {
		top, err := a.root.Open(".")
		if err != nil {
			return nil, err
		}
		a.rm.top, a.rm.chain, a.rm.bufs = top, onefs.NewChain(top), &onefs.Buffers{}
	}
	return a.rm.chain, nil
}

func (r *remover) close() {
	if r.chain != nil {
		r.chain.Close()
		r.top.Close()
		*r = remover{}
	}
}

// survey walks a hidden directory (store-relative name) on its own file
// system, measuring it when asked, and lists the mount points in it.
func (a *applier) survey(name string, measure bool) survey {
	c, err := a.chain()
	if err != nil {
		return survey{err: err}
	}
	if err := c.Enter(path.Dir(name)); err != nil {
		return survey{err: err}
	}
	u, err := onefs.WalkAt(c.Fd(), path.Base(name), measure, a.rm.bufs)
	if err != nil {
		return survey{err: fmt.Errorf("examining %s before deleting it: %w", name, err)}
	}
	return survey{bytes: u.Bytes, mounts: u.Mounts}
}

// doom renames the hidden directory name (store-relative) to a doomed
// name in the same VERSION directory, on the chain's descriptor of that
// directory (checked first), and returns the new name. The rename is not
// synced: the caller does that.
func (a *applier) doom(name, release string) (string, error) {
	vdir := path.Dir(name)
	c, err := a.chain()
	if err != nil {
		return "", err
	}
	if err := c.Enter(vdir); err != nil {
		return "", err
	}
	doomed := debrisName(vdir, "doomed", release)
	if err := c.Rename(path.Base(name), path.Base(doomed)); err != nil {
		return "", err
	}
	return doomed, nil
}

// syncDoom makes doom's rename in vdir durable: the chain stands at
// vdir (doom entered it), and its descriptor is synced.
func (a *applier) syncDoom(vdir string) { a.rm.chain.Sync() }

// removeDoomed deletes the doomed directory base in vdir (finish) and
// prunes the empty directories above it. Each step acts on the chain's
// descriptor of the VERSION directory, checked first.
func (a *applier) removeDoomed(vdir, base string) error {
	c, err := a.chain()
	if err != nil {
		return err
	}
	if err := c.Enter(vdir); err != nil {
		return err
	}
	if err := c.RemoveAll(base); err != nil {
		return err
	}
	a.pruneEmpty(vdir)
	return nil
}

// pruneEmpty removes dir and its parents while they are empty. rmdir(2)
// fails on a non-empty directory, so an install that has just put
// something there wins; "not empty" and "not found" are expected.
func (a *applier) pruneEmpty(dir string) {
	c, err := a.chain()
	if err != nil || c.Enter(dir) != nil {
		return
	}
	c.PruneEmpty()
}

// probe fsyncs the directory the chain stands at after a release's
// deletion (its VERSION directory, or the nearest one left above it),
// which commits the unlinks made since the last commit (pacer.after).
func (a *applier) probe(vdir string) {
	if a.rm.chain != nil {
		a.rm.chain.Sync()
	}
}
