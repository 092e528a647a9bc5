package retention

import (
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/hab-gc/hab-gc/internal/onefs"
	"github.com/hab-gc/hab-gc/pkgstore"
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
	buf   []byte // directory entries, for every walk
}

// chain returns the remover's chain, started at the store's directory
// when first needed.
func (a *applier) chain() (*onefs.Chain, error) {
	if a.rm.chain == nil {
		top, err := a.root.Open(".")
		if err != nil {
			return nil, err
		}
		a.rm.top, a.rm.chain, a.rm.buf = top, onefs.NewChain(top), make([]byte, 8<<10)
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
	u, err := onefs.WalkAt(c.Fd(), path.Base(name), measure, a.rm.buf)
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

// finish deletes a surveyed hidden directory: unless it is doomed already
// (doomAll), it renames it to a doomed name (so a crash can never restore
// it half deleted) and syncs that; it deletes it on its own file system
// without following a symlink (onefs.RemoveAll, which stops at a mount
// point that appears meanwhile), then removes the VERSION, NAME and
// ORIGIN directories if they are empty. Each step acts on the chain's
// descriptor of the VERSION directory, checked first.
func (a *applier) finish(name, release string) error {
	vdir := path.Dir(name)
	if !strings.HasPrefix(path.Base(name), pkgstore.DebrisPrefix+"doomed-") {
		doomed, err := a.doom(name, release)
		if err != nil {
			return err
		}
		a.rm.chain.Sync()
		name = doomed
	}
	c, err := a.chain()
	if err != nil {
		return err
	}
	if err := c.Enter(vdir); err != nil {
		return err
	}
	if err := c.RemoveAll(path.Base(name)); err != nil {
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
