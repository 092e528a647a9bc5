package runroots

import (
	"path"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// held maps a path to the install in progress it is a file of
// (procHeld.Path); a Studio's bind mount of the cache is not the host's.
func (m *matcher) held(p string) (string, bool) {
	if !slices.ContainsFunc(m.caches, func(c string) bool { return strings.HasPrefix(p, c) }) &&
		!slices.ContainsFunc(m.stores, func(s string) bool { return strings.HasPrefix(p, s) }) {
		return "", false
	}
	p = path.Clean(strings.TrimSuffix(p, " (deleted)"))
	for _, c := range m.caches {
		if rest, ok := strings.CutPrefix(p, c); ok && rest != "" && !strings.Contains(rest, "/") {
			return pkgstore.ArtifactCacheDir + "/" + rest, true
		}
	}
	for _, s := range m.stores {
		rest, ok := strings.CutPrefix(p, s)
		if !ok {
			continue
		}
		parts := strings.SplitN(rest, "/", 5)
		if len(parts) >= 4 && strings.HasPrefix(parts[3], pkgstore.InstallTempPrefix) && !strings.HasPrefix(parts[3], pkgstore.DebrisPrefix) {
			return pkgstore.StoreDir + "/" + strings.Join(parts[:4], "/"), true
		}
	}
	return "", false
}
