//go:build windows

package runroots

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hab-gc/hab-gc/internal/inuse"
	"github.com/hab-gc/hab-gc/internal/onefs"
)

// probe keeps each release to remove that holds a file Windows would not
// let be deleted (onefs.HeldOpen: a running program, a loaded DLL).
func (lp leaseProbe) probe(ctx context.Context, dirs []inuse.ProbeDir) (inuse.Probed, error) {
	var out inuse.Probed
	busy, unprobed, example := 0, 0, ""
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		held, err := heldIn(filepath.Join(lp.store, filepath.FromSlash(d.Dir())))
		switch {
		case err != nil:
			unprobed++
			if example == "" {
				example = fmt.Sprintf("%s: %v", d.Ident, err)
			}
		case held != "":
			busy++
			out.Roots = append(out.Roots, inuse.Root{Ident: d.Ident, Code: inuse.CodeInUse,
				Text: fmt.Sprintf("a process holds %s of it open, so that Windows would not let it be deleted (a running program, a loaded DLL)", held)})
		}
	}
	out.Counts = map[string]int{"held_probed_releases": len(dirs) - unprobed, "held_busy_releases": busy, "held_unprobed_releases": unprobed}
	out.Summary = fmt.Sprintf("%s; %d release(s) to remove checked for files held open, %d held", lp.scan.Summary(), len(dirs)-unprobed, busy)
	done := fmt.Sprintf("the %d release(s) to remove were checked for files held open instead, %d held and kept", len(dirs)-unprobed, busy)
	if unprobed > 0 && lp.bestEffort {
		done += fmt.Sprintf("; %d could not be checked and were accepted unseen (best-effort)", unprobed)
	}
	out.Notice = lp.scan.notice(done)
	if unprobed > 0 && !lp.bestEffort {
		return out, fmt.Errorf("runtime roots: %s and %d release(s) to remove could not be checked for files held open (%s): %w; accept what cannot be seen with best-effort runtime roots",
			lp.scan.blindText(), unprobed, example, ErrBlind)
	}
	return out, nil
}

func heldIn(dir string) (string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return onefs.HeldOpen(f)
}
