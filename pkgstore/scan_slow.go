package pkgstore

import (
	"fmt"
	"os"
	"strings"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// scanReleaseSlow reads the release id from its directory dir (its
// release name, or the name hab-gc hid it under) through an os.Root. It returns nil when Habitat
// would not list it (recorded as a non-blocking problem that says why), or
// when hab-gc cannot read it as a release although Habitat lists it or may
// list it: a name that cannot be part of an ident (odd says why), or a
// TARGET hab-gc cannot read. Such a directory is blocking damage, and what
// its readable DEPS and TDEPS lines name is recorded in Inventory.Opaque.
func (sc *scanner) scanReleaseSlow(vroot *os.Root, id Ident, dir, odd string) *Release {
	path := storePath(id.Origin, id.Name, id.Version, dir)
	rroot, err := vroot.OpenRoot(safeio.Dir(dir))
	if err != nil {
		sc.problems.add(Problem{Path: path, Kind: ProblemUnreadable, Blocking: true,
			Message: fmt.Sprintf("cannot open release directory, so whether it is installed is unknown: %v", errMsg(err))})
		return nil
	}
	defer rroot.Close()

	listed, unsure := sc.readTarget(rroot, path)
	switch {
	case unsure != "":
		sc.problems.add(Problem{Path: path + "/TARGET", Kind: ProblemTarget, Blocking: true,
			Message: unsure + "; what its DEPS and TDEPS name is kept"})
		sc.opaque(rroot, path)
		return nil
	case !listed:
		return nil
	case odd != "":
		sc.problems.add(Problem{Path: path, Kind: ProblemBadName, Blocking: true,
			Message: "Habitat lists this installed release, but " + odd + ", so hab-gc cannot take it as a package ident; what its DEPS and TDEPS name is kept"})
		sc.opaque(rroot, path)
		return nil
	}

	rel := &Release{Ident: id, Size: -1}
	if fi, err := rroot.Stat("."); err == nil {
		rel.ModTime, rel.ChangeTime = fi.ModTime(), fileinfo.ChangeTime(fi)
		rel.Dev, rel.Ino = DirID(rroot, ".", fi)
	}
	fq := id.String()

	sc.checkIdent(rroot, path, fq)
	sc.readReleaseDeps(rel, rroot, path, fq)

	if sc.opts.Sizes {
		rel.Size = treeSize(rroot)
	}
	return rel
}

// readReleaseDeps reads rel's DEPS and TDEPS through rroot (path is the
// release's, relative to the FS root, fq its ident), interns what they
// name and records the problems met: rel is Damaged when either could not
// be read whole or holds a line that is not a valid ident, and DepsUnknown
// when what it needs is unknown.
func (sc *scanner) readReleaseDeps(rel *Release, rroot *os.Root, path, fq string) {
	var lines [2][][]byte
	var unknown [2]bool
	for i, file := range [2]string{"DEPS", "TDEPS"} {
		l, ok := sc.readDeps(rroot, path+"/"+file, file, fq)
		if !ok {
			rel.Damaged, unknown[i] = true, true
			continue
		}
		if l.streamed {
			rel.Damaged = true
		}
		lines[i] = l.lines
	}
	if bad := sc.intern(rel, lines, path, fq); len(bad) > 0 {
		rel.Damaged = true
		for _, p := range bad {
			sc.problems.add(p)
		}
	}
	// TDEPS names all a release needs, DEPS what it needs directly (the
	// rest through what those need): when one cannot be read and the
	// other names nothing, what the release needs is unknown.
	rel.DepsUnknown = (unknown[0] && len(rel.TDeps) == 0) || (unknown[1] && len(rel.Deps) == 0)
}

// opaque records a directory Habitat lists (or may list) as an installed
// release that hab-gc cannot read as one, with what its readable DEPS and
// TDEPS lines name.
func (sc *scanner) opaque(rroot *os.Root, path string) {
	o := Opaque{Path: strings.TrimPrefix(path, StoreDir+"/")}
	o.Deps, o.DepsUnknown = sc.depIdents(rroot, path)
	sc.mu.Lock()
	sc.opaques = append(sc.opaques, o)
	sc.mu.Unlock()
}
