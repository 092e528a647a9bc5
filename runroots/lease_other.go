//go:build !linux && !windows

package runroots

import (
	"context"
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/internal/inuse"
)

// probe needs Linux's write leases (fcntl F_SETLEASE): elsewhere it
// checks nothing and fails with an error wrapping ErrBlind and
// errors.ErrUnsupported, so that nothing is removed blind. (Off Linux Scan
// fails first, so a Finder never gets here.)
func (lp leaseProbe) probe(ctx context.Context, dirs []inuse.ProbeDir) (inuse.Probed, error) {
	return inuse.Probed{}, fmt.Errorf("runtime roots: %s and write leases cannot check the %d release(s) to remove here: %w: %w",
		lp.scan.blindText(), len(dirs), ErrBlind, errors.ErrUnsupported)
}
