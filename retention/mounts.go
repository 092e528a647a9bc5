package retention

import (
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// CodeMountPoint keeps a release that has a mount point inside it: hab-gc
// never removes across one.
const CodeMountPoint Code = "mount-point"

func (p *Plan) indexMounts() map[pkgstore.Ref][]Reason {
	var out map[pkgstore.Ref][]Reason
	for _, m := range p.Inventory.Mounts {
		parts := strings.SplitN(m, "/", 5)
		if len(parts) < 4 {
			continue // at the origin, name or version level: not inside a release
		}
		if r := p.Inventory.Installed(pkgstore.Ident{Origin: parts[0], Name: parts[1], Version: parts[2], Release: parts[3]}); r != nil {
			if out == nil {
				out = map[pkgstore.Ref][]Reason{}
			}
			out[r.Ref] = append(out[r.Ref], Reason{CodeMountPoint, mountText(pkgstore.StoreDir + "/" + m)})
		}
	}
	return out
}

func mountText(path string) string {
	return "a file system is mounted at " + path + " inside it (as this mount namespace sees it); hab-gc never removes across a mount point"
}
