package runroots

import (
	"cmp"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/inuse"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// identity knows the release directories of a store by device and inode,
// so that a path that reaches one another way (a bind mount of the store or
// of a directory above it, a chroot, another mount namespace through
// /proc/PID/root) maps to its release: a bind mount keeps the device and
// inode of what it shows.
//
// It is built once a scan, over every release of the store, and lives
// while the processes are read, when the inventory is at its largest: so
// it is a sorted slice of 24-byte records (one allocation, searched by
// binary search; lookups are few, one a path with a release's name in
// it) that name an inventory release by its index, not a map holding a
// copy of each ident (about 100 bytes a release, and as much again in
// garbage as the map grew: 63 MB allocated at 130,000 releases).
type identity struct {
	recs []idRec
	// releases are the inventory's (an idRec's ref >= 0 indexes them);
	// extra the idents of hidden directories and of releases read from
	// disk (ref -1 is extra[0], -2 extra[1]...).
	releases []*pkgstore.Release
	extra    []pkgstore.Ident
	// names are the release directories' own names (RELEASE, or the name
	// hab-gc hid one under): only a path with one of them, at least four
	// components deep, can lie in a release, so that other paths cost no
	// system call.
	names map[string]bool
}

type fileID struct{ dev, ino uint64 }

// idRec is a release directory's identity and which release it is.
type idRec struct {
	id     fileID
	ref    int32
	hidden bool
}

func newIdentity(size int) *identity {
	return &identity{recs: make([]idRec, 0, size), names: make(map[string]bool, size)}
}

// addIdent indexes a directory of release id that is not one of the
// inventory's releases.
func (ix *identity) addIdent(id fileID, ident pkgstore.Ident, hidden bool) {
	ix.extra = append(ix.extra, ident)
	ix.recs = append(ix.recs, idRec{id: id, ref: int32(-len(ix.extra)), hidden: hidden})
}

func cmpID(a, b fileID) int {
	if c := cmp.Compare(a.dev, b.dev); c != 0 {
		return c
	}
	return cmp.Compare(a.ino, b.ino)
}

// sort readies the index for find. Of records with the same identity
// the last added is the one found, as a map's last write would be.
func (ix *identity) sort() {
	slices.SortStableFunc(ix.recs, func(a, b idRec) int { return cmpID(a.id, b.id) })
	out := ix.recs[:0]
	for i, r := range ix.recs {
		if i+1 < len(ix.recs) && ix.recs[i+1].id == r.id {
			continue // a later one wins
		}
		out = append(out, r)
	}
	ix.recs = out
}

// find returns the release whose directory has identity id.
func (ix *identity) find(id fileID) (pkgstore.Ident, bool, bool) {
	i, ok := slices.BinarySearchFunc(ix.recs, id, func(r idRec, id fileID) int { return cmpID(r.id, id) })
	if !ok {
		return pkgstore.Ident{}, false, false
	}
	r := ix.recs[i]
	if r.ref < 0 {
		return ix.extra[-r.ref-1], r.hidden, true
	}
	return ix.releases[r.ref].Ident, r.hidden, true
}

// identityOf indexes an inventory's releases and hidden directories.
func identityOf(inv *pkgstore.Inventory) *identity {
	ix := newIdentity(len(inv.Releases) + len(inv.Debris))
	ix.releases = inv.Releases
	for i, r := range inv.Releases {
		if r.Ino != 0 {
			ix.recs = append(ix.recs, idRec{id: fileID{r.Dev, r.Ino}, ref: int32(i)})
			ix.names[r.Ident.Release] = true
		}
	}
	store := storeDir(inv.FSRoot)
	for _, d := range inv.Debris {
		ix.addHidden(store, d)
	}
	ix.sort()
	return ix
}

// addHidden indexes a hidden directory (relative to the store) that holds
// a release.
func (ix *identity) addHidden(store, rel string) {
	name := path.Base(rel)
	release, ok := inuse.HiddenRelease(name)
	if !ok {
		return
	}
	id, err := pkgstore.ParseFullIdent(path.Dir(rel) + "/" + release)
	if err != nil {
		return
	}
	var st unix.Stat_t
	if unix.Lstat(filepath.Join(store, rel), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return
	}
	ix.addIdent(fileID{st.Dev, st.Ino}, id, true)
	ix.names[name] = true
}

// candidate reports whether p (absolute, cleaned) has a component that
// names a release directory at depth four or more.
func (ix *identity) candidate(p string) bool {
	found := false
	ix.dirs(p, func(string, string) bool { found = true; return true })
	return found
}

// dirs calls f with each prefix of p whose last component is the name of
// a release directory, at least four components deep, and the rest of p
// below it, until f returns true.
func (ix *identity) dirs(p string, f func(dir, rest string) bool) {
	if len(ix.names) == 0 {
		return
	}
	depth := 0
	for i := 0; i < len(p); {
		if p[i] == '/' {
			i++
			continue
		}
		end := strings.IndexByte(p[i:], '/')
		if end < 0 {
			end = len(p)
		} else {
			end += i
		}
		depth++
		if depth >= 4 && ix.names[p[i:end]] {
			rest := ""
			if end < len(p) {
				rest = p[end+1:]
			}
			if f(p[:end], rest) {
				return
			}
		}
		i = end
	}
}

// lookup maps p, resolved under prefix (a directory this process can
// reach, "" for its own root), to a release by the identity of the
// release directory it lies in.
func (ix *identity) lookup(prefix, p string) (id pkgstore.Ident, file string, hidden, ok bool) {
	ix.dirs(p, func(dir, rest string) bool {
		var st unix.Stat_t
		if unix.Stat(prefix+dir, &st) != nil {
			return false
		}
		eid, h, found := ix.find(fileID{st.Dev, st.Ino})
		if !found {
			return false
		}
		id, file, hidden, ok = eid, rest, h, true
		return true
	})
	return id, file, hidden, ok
}

// sameFile maps p to a release when, for a prefix of p ending in a
// release's name, the file at the same place in the store (its last four
// components ORIGIN/NAME/VERSION/RELEASE, then the rest of p) is the one
// same accepts.
func (ix *identity) sameFile(store, p string, same func(*unix.Stat_t) bool) (id pkgstore.Ident, file string, hidden, ok bool) {
	ix.dirs(p, func(dir, rest string) bool {
		parts := strings.Split(strings.TrimPrefix(dir, "/"), "/")
		rel := strings.Join(parts[len(parts)-4:], "/")
		name := parts[len(parts)-1]
		release, h := name, false
		if strings.HasPrefix(name, pkgstore.DebrisPrefix) {
			if release, h = inuse.HiddenRelease(name); !h {
				return false
			}
		}
		i, err := pkgstore.ParseFullIdent(path.Dir(rel) + "/" + release)
		if err != nil {
			return false
		}
		target := store + "/" + rel
		if rest != "" {
			target += "/" + rest
		}
		var st unix.Stat_t
		if unix.Lstat(target, &st) != nil || !same(&st) {
			return false
		}
		id, file, hidden, ok = i, rest, h, true
		return true
	})
	return id, file, hidden, ok
}
