package runroots

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// reader is one worker's buffers and memory of matches.
type reader struct {
	m     *matcher
	ix    *identity // nil: match by path only
	proc  string
	buf   []byte
	link  []byte
	dents []byte
	cache map[string]matched
	store *unix.Stat_t // nil when it could not be read
}

type matched struct {
	id     pkgstore.Ident
	file   string
	hidden bool
	ok     bool
	cand   bool // not matched, but another view of it may be (identity)
}

// match is matcher.match, then identity.lookup, remembered: processes
// share most paths.
func (r *reader) match(p string) matched {
	if m, ok := r.cache[p]; ok {
		return m
	}
	return r.matchMiss(p)
}

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

// viewPrefixes are the store paths as a process with root directory
// root names them, and always /hab/pkgs/ (a bind mount, matched by
// identity).
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

func (m *matcher) mayHold(b []byte) bool {
	for _, n := range m.needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

const habStore = "/" + pkgstore.StoreDir + "/"
