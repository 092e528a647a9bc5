package pkgstore

import (
	"slices"

	"github.com/hab-gc/hab-gc/internal/onefs"
)

// readMounts records the mount points inside the store, as this process's
// mount namespace sees them (/proc/self/mountinfo).
func (s *Store) readMounts(inv *Inventory, probs *problems) {
	ms, err := onefs.MountsUnder(s.Path())
	if err != nil {
		probs.add(Problem{Path: StoreDir, Kind: ProblemMounts,
			Message: "cannot read the mount table, so mount points inside the store are unknown to the plan (removal still stops at each): " + errMsg(err)})
		return
	}
	slices.Sort(ms)
	inv.Mounts = ms
}
