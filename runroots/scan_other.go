//go:build !linux && !windows

package runroots

import (
	"context"
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// errNoScan is Scan's error off Linux: the processes' files, mappings and
// environments are read from Linux's /proc. A Finder then fails, so that
// retention removes nothing a process might use rather than taking "no
// process seen" for "nothing in use".
func errNoScan(procRoot string) error {
	if procRoot == "" {
		procRoot = DefaultProcRoot
	}
	return fmt.Errorf("%w: reading processes from %s is only implemented on Linux: %w", ErrNoProc, procRoot, errors.ErrUnsupported)
}

func scan(ctx context.Context, procRoot string, inv *pkgstore.Inventory) (*Result, error) {
	return nil, errNoScan(procRoot)
}
