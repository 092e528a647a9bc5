package retention

import (
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// CodeMountPoint keeps a release that has a mount point inside it: hab-gc
// never removes across one.
const CodeMountPoint Code = "mount-point"

// mountRoots makes every release with a mount point at or under its
// directory a root.
func (p *Plan) mountRoots() {
	for _, m := range p.Inventory.Mounts {
		parts := strings.SplitN(m, "/", 5)
		if len(parts) < 4 {
			continue // at the origin, name or version level: not inside a release
		}
		if r := p.Inventory.Installed(pkgstore.Ident{Origin: parts[0], Name: parts[1], Version: parts[2], Release: parts[3]}); r != nil {
			p.addRoot(r.Ref, CodeMountPoint, mountText(pkgstore.StoreDir+"/"+m))
		}
	}
}

func mountText(path string) string {
	return "a file system is mounted at " + path + " inside it (as this mount namespace sees it); hab-gc never removes across a mount point"
}
