package runroots

import (
	"cmp"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// identity knows the release directories by device and inode, which a
// bind mount keeps. It is a sorted slice of small records naming a
// release by index, not a map of idents (63 MB allocated at 130,000
// releases).
type identity struct {
	recs []idRec
	// A ref >= 0 indexes releases; -1 is extra[0], -2 extra[1]...
	releases []*pkgstore.Release
	extra    []pkgstore.Ident
	// names are the release directories' names: a path without one, four
	// or more deep, costs no system call.
	names map[string]bool
}

type fileID struct{ dev, ino uint64 }

type idRec struct {
	id     fileID
	ref    int32
	hidden bool
}

func newIdentity(size int) *identity {
	return &identity{recs: make([]idRec, 0, size), names: make(map[string]bool, size)}
}

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

// sort readies the index for find; of records with the same identity
// the last added wins.
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

func (ix *identity) addHidden(store, rel string) {
	name := path.Base(rel)
	id, hidden, ok := releaseOf(path.Dir(rel), name)
	if !ok || !hidden {
		return
	}
	var st unix.Stat_t
	if unix.Lstat(filepath.Join(store, rel), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return
	}
	ix.addIdent(fileID{st.Dev, st.Ino}, id, true)
	ix.names[name] = true
}

func (ix *identity) candidate(p string) bool {
	found := false
	ix.dirs(p, func(string, string) bool { found = true; return true })
	return found
}

// dirs calls f with each prefix of p, four or more deep, ending in a
// release directory's name, and the rest of p, until f returns true.
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

// lookup maps p, resolved under prefix, to a release by its release
// directory's identity.
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

// sameFile maps p to a release when the file at the same place under the
// store's ORIGIN/NAME/VERSION/RELEASE is one same accepts.
func (ix *identity) sameFile(store, p string, same func(*unix.Stat_t) bool) (id pkgstore.Ident, file string, hidden, ok bool) {
	ix.dirs(p, func(dir, rest string) bool {
		parts := strings.Split(strings.TrimPrefix(dir, "/"), "/")
		rel := strings.Join(parts[len(parts)-4:], "/")
		i, h, isRelease := releaseOf(path.Dir(rel), parts[len(parts)-1])
		if !isRelease {
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
