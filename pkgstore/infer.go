package pkgstore

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// ErrTargetAmbiguous is returned by InferTarget when Habitat's own releases
// name several targets, none of them this machine's: which one Habitat
// runs as cannot be told.
var ErrTargetAmbiguous = errors.New("the releases of Habitat's own packages name several targets")

// habitatSelf are the packages whose TARGET says which target Habitat
// itself runs as, in the order they are asked: the hab CLI, the
// Supervisor, and the CLI's older origin. Habitat's binary knows its
// target at build time (PLAN_PACKAGE_TARGET, else its arch and OS:
// active_package_target in habitat-sh/habitat
// components/core/src/package/target.rs), and its own package is built
// for that target, so the TARGET of its release is it.
var habitatSelf = [...]string{"chef/hab", "chef/hab-sup", "core/hab"}

// InferTarget returns the target Habitat runs as on the machine whose FS
// root is fsRoot: the TARGET of the installed releases of chef/hab (else
// chef/hab-sup, else core/hab), and which release said so. With none of
// them installed, it returns DefaultTarget() and from "". When the first
// of those packages that has releases names several targets, this
// machine's (DefaultTarget) wins if it is among them; otherwise the error
// wraps ErrTargetAmbiguous. TARGET files are read without following a
// symlink or blocking, capped; what cannot be read is not counted.
func InferTarget(fsRoot string) (target, from string, err error) {
	if err := RequireFSRoot(fsRoot); err != nil {
		return "", "", err
	}
	root, err := safeio.OpenRoot(filepath.Join(fsRoot, StoreDir)) // never blocks on a FIFO there
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultTarget(), "", nil
	}
	if err != nil {
		return "", "", err
	}
	defer root.Close()
	for _, pkg := range habitatSelf {
		found := map[string]string{} // target -> first release naming it
		versions, _ := readDir(root, pkg)
		for _, v := range versions {
			if !v.IsDir() {
				continue
			}
			releases, _ := readDir(root, pkg+"/"+v.Name())
			for _, r := range releases {
				if !r.IsDir() || strings.HasPrefix(r.Name(), InstallTempPrefix) {
					continue
				}
				rel := pkg + "/" + v.Name() + "/" + r.Name()
				b, err := safeio.ReadFileAt(root, rel+"/TARGET", safeio.Limit, safeio.NoFollow)
				if t := strings.TrimSpace(string(b)); err == nil && validTarget(t) {
					if _, ok := found[t]; !ok {
						found[t] = rel
					}
				}
			}
		}
		switch {
		case len(found) == 0:
			continue
		case len(found) == 1:
			for t, rel := range found {
				return t, rel, nil
			}
		}
		if rel, ok := found[DefaultTarget()]; ok {
			return DefaultTarget(), rel, nil
		}
		ts := make([]string, 0, len(found))
		for t, rel := range found {
			ts = append(ts, t+" ("+rel+")")
		}
		sort.Strings(ts)
		return "", "", fmt.Errorf("%w: %s; this machine's %s is not among them", ErrTargetAmbiguous, strings.Join(ts, ", "), DefaultTarget())
	}
	return DefaultTarget(), "", nil
}
