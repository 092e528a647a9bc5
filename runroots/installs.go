package runroots

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// procHeld is a process showing an install in progress. Until its install
// directory exists, the cached archive Habitat holds open to read, verify
// and unpack it is all that shows it (common/src/command/package/install.rs
// get_cached_artifact, unpack_artifact).
type procHeld struct {
	PID  int
	Comm string
	Kind useKind // kindFD, kindCwd, or kindCmdline
	// Path, relative to the FS root, is hab/cache/artifacts/FILE or the
	// install directory hab/pkgs/ORIGIN/NAME/VERSION/.hab-pkg-install-...
	Path string
	// Command is a running `hab pkg install` or `hab svc load`, which may
	// be between the opens of its archives.
	Command string
}

// habInstallCommand reports whether a cmdline is `hab pkg install` or
// `hab svc load` (which installs: hab/src/cli_v4/svc/load.rs), flags
// anywhere, and returns it printable and capped.
func habInstallCommand(cmdline []byte) (string, bool) {
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if len(args) < 3 || path.Base(args[0]) != "hab" {
		return "", false
	}
	var words []string
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
		}
		if len(words) == 2 {
			break
		}
	}
	if len(words) < 2 || !(words[0] == "pkg" && words[1] == "install" || words[0] == "svc" && words[1] == "load") {
		return "", false
	}
	s := printable(strings.Join(args, " "))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s, true
}

// String is e.g. "process 4121 (hab) has hab/cache/artifacts/x.hart open".
func (h procHeld) String() string {
	who := fmt.Sprintf("process %d (%s)", h.PID, printable(h.Comm))
	if h.Kind == kindCmdline {
		return who + " runs " + h.Command
	}
	if h.Kind == kindCwd {
		return who + " has its working directory in " + printable(h.Path)
	}
	if strings.HasPrefix(h.Path, pkgstore.StoreDir+"/") {
		return who + " has a file of " + printable(h.Path) + " open"
	}
	return who + " has " + printable(h.Path) + " open"
}

// slashDirs are dir as given and with symlinks resolved, each ending in
// "/".
func slashDirs(dir string) []string {
	d := filepath.ToSlash(dir)
	out := []string{d + "/"}
	if real, err := filepath.EvalSymlinks(dir); err == nil && filepath.ToSlash(real) != d {
		out = append(out, filepath.ToSlash(real)+"/")
	}
	return out
}

// installs are the installs in progress processes show, one per file or
// install directory, named after its first holder.
func (r *procScan) installs(inv *pkgstore.Inventory) []pkgstore.Installing {
	var out []pkgstore.Installing
	first := map[string]int{}         // path -> index in out
	pids := map[string]map[int]bool{} // path -> its holders
	for _, h := range r.Held {
		if h.Kind == kindCmdline {
			// Its needs are unknown: every removal waits.
			out = append(out, pkgstore.Installing{Active: true, By: h.String(),
				From: "the command line of a Habitat install running"})
			continue
		}
		if pids[h.Path] == nil {
			pids[h.Path] = map[int]bool{}
		}
		pids[h.Path][h.PID] = true
		if _, ok := first[h.Path]; ok {
			continue
		}
		first[h.Path] = len(out)
		var in pkgstore.Installing
		if file, ok := strings.CutPrefix(h.Path, pkgstore.ArtifactCacheDir+"/"); ok {
			in = pkgstore.HeldArchive(inv.FSRoot, file)
		} else {
			rel := strings.TrimPrefix(h.Path, pkgstore.StoreDir+"/")
			in = pkgstore.Installing{Path: rel, From: "the install directory appeared after the store was read"}
			for _, i := range inv.Installing {
				if i.Path == rel {
					in = i
					break
				}
			}
			in.Active = true
		}
		in.By = h.String()
		out = append(out, in)
	}
	for p, i := range first {
		out[i].By += andOthers(len(pids[p])-1, "", "")
	}
	return out
}

// andOthers is " (and 1 other process"+one+")", or n's plural.
func andOthers(n int, one, many string) string {
	switch {
	case n == 1:
		return " (and 1 other process" + one + ")"
	case n > 1:
		return fmt.Sprintf(" (and %d other processes%s)", n, many)
	}
	return ""
}
