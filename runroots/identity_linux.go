package runroots

import (
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// identity knows the release directories of a store by device and inode,
// so that a path that reaches one another way (a bind mount of the store or
// of a directory above it, a chroot, another mount namespace through
// /proc/PID/root) maps to its release: a bind mount keeps the device and
// inode of what it shows.
type identity struct {
	byID map[fileID]idEntry
	// names are the release directories' own names (RELEASE, or the name
	// hab-gc hid one under): only a path with one of them, at least four
	// components deep, can lie in a release, so that other paths cost no
	// system call.
	names map[string]bool
}

type fileID struct{ dev, ino uint64 }

type idEntry struct {
	id     pkgstore.Ident
	hidden bool
}

func newIdentity() *identity {
	return &identity{byID: map[fileID]idEntry{}, names: map[string]bool{}}
}

// identityOf indexes an inventory's releases and hidden directories.
func identityOf(inv *pkgstore.Inventory) *identity {
	ix := newIdentity()
	for _, r := range inv.Releases {
		if r.Ino != 0 {
			ix.byID[fileID{r.Dev, r.Ino}] = idEntry{id: r.Ident}
			ix.names[r.Ident.Release] = true
		}
	}
	store := storeDir(inv.FSRoot)
	for _, d := range inv.Debris {
		ix.addHidden(store, d)
	}
	return ix
}

// addHidden indexes a hidden directory (relative to the store) that holds
// a release.
func (ix *identity) addHidden(store, rel string) {
	name := path.Base(rel)
	release, ok := retention.HiddenRelease(name)
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
	ix.byID[fileID{st.Dev, st.Ino}] = idEntry{id: id, hidden: true}
	ix.names[name] = true
}

// identityFromDisk indexes the store under fsRoot by listing its
// ORIGIN/NAME/VERSION/RELEASE directories (what Scan does without an
// inventory). What cannot be read is left out.
func identityFromDisk(fsRoot string) *identity {
	ix := newIdentity()
	store := storeDir(fsRoot)
	list := func(dir string) []string {
		ents, err := safeio.ReadDir(dir)
		if err != nil {
			return nil
		}
		var out []string
		for _, e := range ents {
			if e.IsDir() {
				out = append(out, e.Name())
			}
		}
		return out
	}
	for _, o := range list(store) {
		for _, n := range list(filepath.Join(store, o)) {
			for _, v := range list(filepath.Join(store, o, n)) {
				for _, r := range list(filepath.Join(store, o, n, v)) {
					rel := o + "/" + n + "/" + v + "/" + r
					if strings.HasPrefix(r, pkgstore.DebrisPrefix) {
						ix.addHidden(store, rel)
						continue
					}
					id, err := pkgstore.ParseFullIdent(rel)
					if err != nil || strings.HasPrefix(r, pkgstore.InstallTempPrefix) {
						continue
					}
					var st unix.Stat_t
					if unix.Lstat(filepath.Join(store, rel), &st) == nil {
						ix.byID[fileID{st.Dev, st.Ino}] = idEntry{id: id}
						ix.names[r] = true
					}
				}
			}
		}
	}
	return ix
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
		e, found := ix.byID[fileID{st.Dev, st.Ino}]
		if !found {
			return false
		}
		id, file, hidden, ok = e.id, rest, e.hidden, true
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
			if release, h = retention.HiddenRelease(name); !h {
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
