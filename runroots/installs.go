package runroots

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// Held is a process holding open a file of an install in progress: an
// archive (or a download) in the artifact cache, or a file or its working
// directory in an install directory. Habitat's install opens a cached
// archive to read its metadata, to verify it and to unpack it
// (components/common/src/command/package/install.rs get_cached_artifact,
// unpack_artifact; components/core/src/package/archive.rs
// PackageArchive::new, unpack), for the package being installed before
// it says "Using" for the dependencies it finds installed: until its
// install directory exists, that open archive is all that shows the
// install. `hab pkg install`, and the Supervisor installing what `hab svc
// load` or an update asks for, run the same code.
type Held struct {
	PID  int
	Comm string
	Kind Kind // KindFD, KindCwd, or KindCmdline (Command)
	// Path is relative to the FS root: hab/cache/artifacts/FILE, or
	// hab/pkgs/ORIGIN/NAME/VERSION/.hab-pkg-install-... (the install
	// directory, whatever file in it is open); empty for KindCmdline.
	Path string
	// Command, for KindCmdline, is the process's command line: a `hab pkg
	// install` or `hab svc load` running (habInstallCommand), which may be
	// between the opens of its archives, where no file shows it.
	Command string
}

// habInstallCommand reports whether a process's command line (NUL
// separated, /proc/PID/cmdline) is Habitat's CLI installing: `hab pkg
// install ...` or `hab svc load ...` (which installs what it loads when
// it is not installed: components/hab/src/cli_v4/svc/load.rs), flags
// anywhere; it returns the command line, printable and capped.
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

// String says what the process holds, e.g. "process 4121 (hab) has
// hab/cache/artifacts/core-app-...hart open".
func (h Held) String() string {
	who := fmt.Sprintf("process %d (%s)", h.PID, printable(h.Comm))
	if h.Kind == KindCmdline {
		return who + " runs " + h.Command
	}
	if h.Kind == KindCwd {
		return who + " has its working directory in " + printable(h.Path)
	}
	if strings.HasPrefix(h.Path, pkgstore.StoreDir+"/") {
		return who + " has a file of " + printable(h.Path) + " open"
	}
	return who + " has " + printable(h.Path) + " open"
}

// cachePrefixes are the artifact cache under fsRoot (absolute), as given
// and with symlinks resolved, each ending in "/".
func cachePrefixes(abs string) []string {
	c := filepath.ToSlash(filepath.Join(abs, pkgstore.ArtifactCacheDir))
	out := []string{c + "/"}
	if real, err := filepath.EvalSymlinks(c); err == nil && filepath.ToSlash(real) != c {
		out = append(out, filepath.ToSlash(real)+"/")
	}
	return out
}

// installs are the installs in progress the processes hold open, one per
// file or install directory (named after its first holder), as
// retention.Found.Installs: an archive's release and what it needs read
// from it (pkgstore.HeldArchive), an install directory's from the
// inventory, each Active.
func (r *Result) installs(inv *pkgstore.Inventory) []pkgstore.Installing {
	var out []pkgstore.Installing
	first := map[string]int{}         // path -> index in out
	pids := map[string]map[int]bool{} // path -> its holders
	for _, h := range r.Held {
		if h.Kind == KindCmdline {
			// Its needs are unknown until its archives open or its install
			// directory appears: every removal waits.
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
		switch n := len(pids[p]) - 1; {
		case n == 1:
			out[i].By += " (and 1 other process)"
		case n > 1:
			out[i].By += fmt.Sprintf(" (and %d other processes)", n)
		}
	}
	return out
}
