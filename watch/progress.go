package watch

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// installing reports an install in progress that pkg's purge must wait
// for: a `.hab-pkg-install-*` directory (Habitat's temp directory, not
// hab-gc's hidden removals) younger than the install window in a version
// directory of pkg or of a package its releases' TDEPS name. Habitat
// unpacks each release there and renames it into place
// (components/core/src/package/list.rs temp_package_directory;
// components/common/src/command/package/install.rs), dependencies first.
// An older one is a killed install's leftover, which never finishes.
func (w *watcher) installing(pkg pkgstore.Ident) (string, bool) {
	now := w.o.now()
	pkgs := []pkgstore.Ident{pkg}
	seen := map[pkgstore.Ident]bool{pkg: true}
	dir := filepath.Join(w.store, pkg.Origin, pkg.Name)
	versions, _ := safeio.ReadDir(dir)
	for _, v := range versions {
		if !v.IsDir() || strings.HasPrefix(v.Name(), ".") {
			continue
		}
		rels, _ := safeio.ReadDir(filepath.Join(dir, v.Name()))
		for _, r := range rels {
			if !r.IsDir() || strings.HasPrefix(r.Name(), ".") {
				continue
			}
			// Never blocking on a FIFO, never following a symlink, capped:
			// what cannot be read names nothing here (the scan reports it).
			data, err := safeio.ReadFile(filepath.Join(dir, v.Name(), r.Name(), "TDEPS"), safeio.Limit, safeio.NoFollow)
			if err != nil {
				continue
			}
			for _, line := range strings.Fields(string(data)) {
				id, err := pkgstore.ParseIdent(line)
				if err != nil || seen[id.Package()] {
					continue
				}
				seen[id.Package()] = true
				pkgs = append(pkgs, id.Package())
			}
		}
	}
	for _, p := range pkgs {
		pd := filepath.Join(w.store, p.Origin, p.Name)
		versions, _ := safeio.ReadDir(pd)
		for _, v := range versions {
			if !v.IsDir() {
				continue
			}
			entries, _ := safeio.ReadDir(filepath.Join(pd, v.Name()))
			for _, e := range entries {
				n := e.Name()
				if !strings.HasPrefix(n, installPrefix) || strings.HasPrefix(n, hiddenPrefix) {
					continue
				}
				path := filepath.Join(pd, v.Name(), n)
				fi, err := os.Lstat(path)
				if err != nil {
					continue
				}
				// A modification time ahead of the clock is judged by the
				// change time: it would otherwise hold the purge for good.
				if changed, _ := fileinfo.ChangedAt(fi, now); now.Sub(changed) < w.o.installWindow() {
					rel, _ := w.rel(path)
					return rel, true
				}
			}
		}
	}
	return "", false
}

// installPrefix starts Habitat's install temp directories (and hab-gc's
// hidden removals, hiddenPrefix).
const (
	installPrefix = ".hab-pkg-install-"
	hiddenPrefix  = ".hab-pkg-install-hab-gc-"
)
