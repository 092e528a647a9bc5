package watch

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// installing finds a young `.hab-pkg-install-*` directory of pkg or of a
// package its TDEPS name (components/core/src/package/list.rs
// temp_package_directory).
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
				if changed, _ := fileinfo.ChangedAt(fi, now); now.Sub(changed) < w.o.installWindow() {
					rel, _ := w.rel(path)
					return rel, true
				}
			}
		}
	}
	return "", false
}

const (
	installPrefix = ".hab-pkg-install-"
	hiddenPrefix  = ".hab-pkg-install-hab-gc-"
)
