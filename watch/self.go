package watch

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/runroots"
)

// selfRunsNewest returns nil when a process executes pkg's newest release,
// else why not.
func (w *watcher) selfRunsNewest(ctx context.Context, inv *pkgstore.Inventory, pkg pkgstore.Ident) error {
	latest := inv.Latest(pkg)
	if latest == nil {
		return fmt.Errorf("no release of %s is installed", pkg)
	}
	ids, err := runroots.Executing(ctx, w.o.ProcRoot, inv, pkg)
	if err != nil {
		return fmt.Errorf("which release of %s runs cannot be told: %w", pkg, err)
	}
	if slices.Contains(ids, latest.Ident) {
		return nil
	}
	var running []string
	for _, id := range ids {
		running = append(running, id.String())
	}
	if len(running) == 0 {
		return fmt.Errorf("no process runs %s's newest release, %s", pkg, latest.Ident)
	}
	slices.Sort(running)
	return fmt.Errorf("the Supervisor runs %s, not the newest installed release, %s", strings.Join(slices.Compact(running), ", "), latest.Ident)
}
