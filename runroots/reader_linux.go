package runroots

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// reader reads processes; each worker has its own buffer.
type reader struct {
	m     *matcher
	ix    *identity // the store's release directories (nil: match by path only)
	proc  string
	buf   []byte // file contents
	link  []byte // link targets
	dents []byte // directory entries
	cache map[string]matched
	// store, storeErr: the store directory's stat (storeStat)
	store    *unix.Stat_t
	storeErr error
}

type matched struct {
	id     pkgstore.Ident
	file   string
	hidden bool
	ok     bool
	// cand: not matched, but a component of the path names a release
	// directory, so that another view of it may still be one (see
	// identity).
	cand bool
}

// match is matcher.match, then identity.lookup in the reader's own view,
// remembered: processes share most paths.
func (r *reader) match(p string) matched {
	if m, ok := r.cache[p]; ok {
		return m
	}
	return r.matchMiss(p)
}

// matchBytes is match for a path in a buffer (no copy when remembered).
func (r *reader) matchBytes(p []byte) matched {
	if m, ok := r.cache[string(p)]; ok {
		return m
	}
	return r.matchMiss(string(p))
}

func (r *reader) matchMiss(p string) matched {
	if r.cache == nil || len(r.cache) > 1<<14 {
		r.cache = map[string]matched{}
	}
	var m matched
	m.id, m.file, m.hidden, m.ok = r.m.match(p)
	if !m.ok && r.ix != nil && strings.HasPrefix(p, "/") {
		c := path.Clean(strings.TrimSuffix(p, " (deleted)"))
		if m.cand = r.ix.candidate(c); m.cand {
			if m.id, m.file, m.hidden, m.ok = r.ix.lookup("", c); m.ok {
				m.cand = false
			}
		}
	}
	r.cache[p] = m
	return m
}

// viewPrefixes are the store paths as a process with root directory root
// names them: the store itself when its root is "/", the part below root
// when the store lies under it, none otherwise.
//
// Habitat's own place for the store, /hab/pkgs/, is always one of them:
// a chroot or container may have the store bind-mounted there (matched
// by identity).
func (r *reader) viewPrefixes(root string) []string {
	if root == "" || root == "/" {
		if slices.Contains(r.m.stores, habStore) {
			return r.m.stores
		}
		return append(slices.Clip(r.m.stores), habStore)
	}
	var out []string
	for _, s := range r.m.stores {
		if rest, ok := strings.CutPrefix(s, strings.TrimSuffix(root, "/")+"/"); ok {
			out = append(out, "/"+rest)
		}
	}
	if !slices.Contains(out, habStore) {
		out = append(out, habStore)
	}
	return out
}

// mayHold reports whether b could contain a store path at all.
func (m *matcher) mayHold(b []byte) bool {
	for _, n := range m.needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// habStore is where Habitat keeps the store under its FS root.
const habStore = "/" + pkgstore.StoreDir + "/"
