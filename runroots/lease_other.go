//go:build !linux && !windows

package runroots

import (
	"context"
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/internal/inuse"
)

// probe has no write leases here: nothing is removed blind.
func (lp leaseProbe) probe(ctx context.Context, dirs []inuse.ProbeDir) (inuse.Probed, error) {
	return inuse.Probed{}, fmt.Errorf("runtime roots: %s and write leases cannot check the %d release(s) to remove here: %w: %w",
		lp.scan.blindText(), len(dirs), ErrBlind, errors.ErrUnsupported)
}
