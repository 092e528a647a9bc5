package pkgstore

import (
	"github.com/hab-gc/hab-gc/internal/provenance"
)

// InstalledBy names the program that installed r as hab-gc watch recorded
// it ("hab-sup" for the Supervisor, "hab" for the CLI), or "unknown"
// without a record of this very directory: installed while nothing
// watched, or where the kernel could not tell.
func (inv *Inventory) InstalledBy(r *Release) string {
	if rec, ok := inv.installedBy[[2]uint64{r.Dev, r.Ino}]; ok && r.Ino != 0 && rec.Ident == r.Ident.String() {
		return rec.By
	}
	return provenance.Unknown
}

// readInstalledBy reads watch's records of who installed each release; a
// file that cannot be read leaves every release unknown, and says so.
func (s *Store) readInstalledBy(inv *Inventory, probs *problems) {
	recs, err := provenance.Read(s.FSRoot())
	if err != nil {
		probs.add(Problem{Path: provenance.Dir + "/" + provenance.File, Kind: ProblemInstalledBy,
			Message: errMsg(err) + "; who installed each release is unknown"})
	}
	inv.installedBy = recs
}
