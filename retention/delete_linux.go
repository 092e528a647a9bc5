package retention

import (
	"fmt"
	"os"
	"path"

	"github.com/hab-gc/hab-gc/internal/onefs"
)

// remover keeps a chain of open directories from one release to the next
// (onefs.Chain): each step is checked on descriptors, never by path.
type remover struct {
	top   *os.File
	chain *onefs.Chain
	bufs  *onefs.Buffers // directory entries, for every walk
}

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

// survey walks a hidden directory on its own file system, measuring it
// when asked, and lists the mount points in it.
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

// doom renames a hidden directory to a doomed name (not synced).
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

func (a *applier) syncDoom(vdir string) { a.rm.chain.Sync() }

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

// pruneEmpty removes dir and its parents while empty: rmdir(2) fails on a
// non-empty one, so an install that has just put something there wins.
func (a *applier) pruneEmpty(dir string) {
	c, err := a.chain()
	if err != nil || c.Enter(dir) != nil {
		return
	}
	c.PruneEmpty()
}

// probe fsyncs the directory the chain stands at (pacer.after).
func (a *applier) probe(vdir string) {
	if a.rm.chain != nil {
		a.rm.chain.Sync()
	}
}
