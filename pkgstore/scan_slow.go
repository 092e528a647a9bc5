package pkgstore

import (
	"fmt"
	"os"
	"strings"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// scanReleaseSlow reads the release id from its directory dir (its name,
// or the one hab-gc hid it under) through an os.Root and says what is
// wrong. It returns nil when Habitat would not list it, or when hab-gc
// cannot read what Habitat may list (odd, or an unreadable TARGET): that
// is blocking damage, recorded as Opaque.
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

// readReleaseDeps reads and interns rel's DEPS and TDEPS, setting Damaged
// and DepsUnknown.
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
	// Either file alone tells what the release needs, through what it names.
	rel.DepsUnknown = (unknown[0] && len(rel.TDeps) == 0) || (unknown[1] && len(rel.Deps) == 0)
}

// opaque records a release hab-gc cannot read, with what its DEPS and
// TDEPS name.
func (sc *scanner) opaque(rroot *os.Root, path string) {
	o := Opaque{Path: strings.TrimPrefix(path, StoreDir+"/")}
	o.Deps, o.DepsUnknown = sc.depIdents(rroot, path)
	sc.mu.Lock()
	sc.opaques = append(sc.opaques, o)
	sc.mu.Unlock()
}
