package pkgstore

import (
	"os"
	"path"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// StudiosDir is where Habitat's Linux Studio keeps each Studio's root,
// under the FS root (components/studio/bin/hab-studio-linux.sh:
// HAB_STUDIOS_HOME, default /hab/studios; a Studio's root is
// /hab/studios/DIR_NAME). The Studio bind-mounts the host's artifact cache
// (ARTIFACT_PATH, default /hab/cache/artifacts) at its own
// hab/cache/artifacts, so what a build fetches lands in the host's cache
// and is installed in the Studio's store, STUDIO/hab/pkgs.
const StudiosDir = "hab/studios"

// studioStores answers whether a release is installed in a Studio's
// store (read lazily, once per scan): a fresh archive of such a release in
// the shared cache is a Studio's install, not the host's, and holds no host
// removal. A Studio that cannot be read counts as not holding it (the
// archive then keeps its protection).
type studioStores struct {
	fsRoot string
	read   bool
	root   *os.Root
	names  []string
}

func (st *studioStores) installed(id Ident) bool {
	if !st.read {
		st.read = true
		top, err := safeio.OpenRoot(st.fsRoot)
		if err != nil {
			return false
		}
		defer top.Close()
		if fi, err := top.Lstat(StudiosDir); err != nil || !fi.IsDir() {
			return false // none, or not a directory (a symlink is not followed)
		}
		// Opened again without following a symlink or blocking: it may
		// have changed since the Lstat.
		if st.root, err = safeio.OpenRootAt(top, StudiosDir, safeio.NoFollow); err != nil {
			return false
		}
		es, _ := readDir(st.root, ".")
		for _, e := range es {
			if e.IsDir() {
				st.names = append(st.names, e.Name())
			}
		}
	}
	if st.root == nil {
		return false
	}
	for _, n := range st.names {
		// os.Root keeps every lookup inside the Studios directory.
		if fi, err := st.root.Lstat(path.Join(n, StoreDir, id.Origin, id.Name, id.Version, id.Release)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

func (st *studioStores) close() {
	if st.root != nil {
		st.root.Close()
	}
}
