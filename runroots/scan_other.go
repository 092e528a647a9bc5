//go:build !linux && !windows

package runroots

import (
	"context"
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// scan fails: "no process seen" is not "nothing in use".
func scan(ctx context.Context, procRoot string, inv *pkgstore.Inventory) (*procScan, error) {
	if procRoot == "" {
		procRoot = DefaultProcRoot
	}
	return nil, fmt.Errorf("%w: reading processes from %s is only implemented on Linux and Windows: %w", ErrNoProc, procRoot, errors.ErrUnsupported)
}
