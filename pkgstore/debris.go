package pkgstore

import (
	"io/fs"
	"os"
	"strings"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// ParseDebris takes apart the name of a directory hab-gc hides a release
// in (retention's Apply): DebrisPrefix + kind ("pending" or "doomed") +
// "-" + release + "-" + ten characters of rand.Text. Doomed directories
// of older runs carry "x" for the release.
func ParseDebris(name string) (kind, release string, ok bool) {
	rest, ok := strings.CutPrefix(name, DebrisPrefix)
	if !ok {
		return "", "", false
	}
	kind, rest, ok = strings.Cut(rest, "-")
	if !ok || (kind != "pending" && kind != "doomed") {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return "", "", false
	}
	release, suffix := rest[:i], rest[i+1:]
	if len(suffix) != 10 || strings.Trim(suffix, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
		return "", "", false
	}
	if release == "x" && kind == "doomed" {
		return kind, release, true
	}
	if _, err := ParseFullIdent("o/n/v/" + release); err != nil {
		return "", "", false
	}
	return kind, release, true
}

// hiddenDir is a release read from the directory an interrupted hab-gc
// run hid it in (Options.Hidden).
type hiddenDir struct {
	id  Ident
	dir string // relative to the store
}

// debrisEntry records an entry of a VERSION directory whose name starts with
// DebrisPrefix. Only a directory is hab-gc's: anything else is reported
// and listed nowhere. With Options.Hidden, a directory holding a release
// an interrupted run hid ("pending") whose place is not taken (taken says
// whether the VERSION directory has an entry of that name) is read as
// that release, its size measured, and returned; nil otherwise.
func (sc *scanner) debrisEntry(vroot *os.Root, origin, name, version, entry string, typ fs.FileMode, odd string, taken func(string) bool) *Release {
	path := storePath(origin, name, version, entry)
	if !typ.IsDir() {
		sc.problems.add(Problem{Path: path, Kind: ProblemInstallLeftover,
			Message: "a " + fileKind(typ) + " named like the directories hab-gc hides releases in: not hab-gc's, left alone"})
		return nil
	}
	rel := origin + "/" + name + "/" + version + "/" + entry
	sc.mu.Lock()
	sc.debris = append(sc.debris, rel)
	sc.mu.Unlock()
	if kind, release, ok := ParseDebris(entry); sc.opts.Hidden && ok && kind == "pending" && !taken(release) {
		if r := sc.scanReleaseSlow(vroot, Ident{origin, name, version, release}, entry, odd); r != nil {
			if rroot, err := vroot.OpenRoot(safeio.Dir(entry)); err == nil {
				// Hiding it set its directory's change time. Its IDENT
				// changed last when Habitat unpacked it, just before the
				// rename that installed it; unreadable, the hiding's time
				// stands, younger.
				if fi, err := rroot.Lstat("IDENT"); err == nil {
					r.ChangeTime = fileinfo.ChangeTime(fi)
				}
				if r.Size < 0 {
					r.Size = treeSize(rroot)
				}
				rroot.Close()
			}
			sc.mu.Lock()
			sc.hidden = append(sc.hidden, hiddenDir{r.Ident, rel})
			sc.mu.Unlock()
			sc.problems.add(Problem{Path: path, Kind: ProblemInstallLeftover,
				Message: "release " + r.Ident.String() + ", hidden by an interrupted hab-gc run; the next run puts it back or removes it, as its policy says"})
			return r
		}
	}
	sc.problems.add(Problem{Path: path, Kind: ProblemInstallLeftover,
		Message: "left by an interrupted hab-gc run; the next run finishes it"})
	return nil
}

// Dir is where r's directory is, relative to the store: its Path, or,
// for a release an interrupted run hid (Options.Hidden), the directory
// it is hidden in.
func (inv *Inventory) Dir(r *Release) string {
	if d, ok := inv.Hidden[r.Ident]; ok {
		return d
	}
	return r.Path()
}
