package pkgstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// DefaultInstallWindow is Options.InstallWindow's default: an install
// directory or cached archive changed within the last hour is taken for an
// install in progress.
const defaultInstallWindow = time.Hour

// tempRandomChars is how many random characters tempfile's TempDir adds
// after Habitat's prefix (components/core/src/package/list.rs
// temp_package_directory: prefix ".hab-pkg-install-RELEASE").
const tempRandomChars = 6

// leftover records an install directory ORIGIN/NAME/VERSION/entry that
// is not hab-gc's own (debris): Habitat's install in progress, or the
// leftover of a killed one. Habitat unpacks the archive as an FS root into it, so
// the release being installed is at entry/hab/pkgs/ORIGIN/NAME/VERSION/RELEASE,
// RELEASE being the temp name's middle. Its needs are read from the
// unpacked TDEPS and DEPS there; while TDEPS is not unpacked yet (an
// archive's metadata may come after its payload), from the release's
// archive in the artifact cache; when neither can be read, Known is false.
func (sc *scanner) leftover(vroot *os.Root, origin, name, version, entry string) {
	rel := origin + "/" + name + "/" + version + "/" + entry
	inst := Installing{Path: rel}
	now := sc.opts.Now
	changed, modified, noticeAt := sc.installDirTimes(vroot, entry, storePath(origin, name, version, entry))
	if fi, err := vroot.Lstat(entry); err == nil {
		inst.Dev, inst.Ino = fileinfo.ID(fi)
		if !fi.IsDir() {
			inst.NotDir = fileKind(fi.Mode())
		}
	}
	// Habitat makes it mode 0700 (tempfile's TempDir): a hab-gc that is
	// not root may not read it, but can still read the archive.
	iroot, err := vroot.OpenRoot(safeio.Dir(entry))
	if err == nil {
		c, complete, future := latestChange(iroot, now)
		if c.After(changed) {
			changed = c
		}
		if future.n > 0 {
			sc.problems.add(futureProblem(storePath(origin, name, version, entry)+"/"+future.path, future.mod, future.chg, now, future.n-1))
		}
		inst.Active = !complete
		defer iroot.Close()
	} else {
		iroot = nil
	}
	sc.readInstall(iroot, origin, name, version, entry, &inst)
	if err != nil && !inst.Known {
		inst.From = "the install directory cannot be read (" + err.Error() + "); " + inst.From
	}
	inst.Changed = changed
	if sc.opts.Now.IsZero() || sc.opts.Now.Sub(changed) < sc.opts.InstallWindow {
		inst.Active = true
	}
	sc.problems.add(Problem{Path: storePath(origin, name, version, entry), Kind: ProblemInstallLeftover,
		Message: leftoverMessage(&inst, modified, sc.opts.Now), Modified: noticeAt})
	sc.mu.Lock()
	sc.installing = append(sc.installing, inst)
	sc.mu.Unlock()
}

// leftoverMessage says what an install directory is: the release inst
// installs, when the directory was modified (against now, when set), and
// why what it needs is unknown, if it is.
func leftoverMessage(inst *Installing, modified, now time.Time) string {
	msg := "install directory: an install in progress, or the leftover of a killed one (Habitat never cleans these up)"
	if inst.Release.Origin != "" {
		msg += "; installing " + inst.Release.String()
	}
	if !modified.IsZero() {
		msg += fmt.Sprintf("; modified %s", modified.UTC().Format(time.RFC3339))
		switch {
		case now.IsZero():
		case modified.After(now):
			msg += ", ahead of the clock"
		default:
			msg += fmt.Sprintf(", %s old", now.Sub(modified).Round(time.Second))
		}
	}
	if !inst.Known {
		msg += "; what it needs cannot be read yet (" + inst.From + ")"
	}
	return msg
}

// readInstall finds the release an install directory installs and what
// it needs; iroot is nil when the directory cannot be read.
func (sc *scanner) readInstall(iroot *os.Root, origin, name, version, entry string, inst *Installing) {
	inner := StoreDir + "/" + origin + "/" + name + "/" + version
	release := ""
	if mid, ok := strings.CutPrefix(entry, InstallTempPrefix+"-"); ok && len(mid) > tempRandomChars {
		release = mid[:len(mid)-tempRandomChars]
	}
	// The unpacked release directory settles it when the name does not
	// (a temp name made otherwise): the one directory there.
	if iroot == nil {
		// Not readable: only the name tells.
	} else if es, err := readDir(iroot, inner); err == nil && !slices.ContainsFunc(es, func(e fs.DirEntry) bool { return e.Name() == release }) {
		var dirs []string
		for _, e := range es {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			}
		}
		if len(dirs) == 1 {
			release = dirs[0]
		}
	}
	id, err := ParseFullIdent(origin + "/" + name + "/" + version + "/" + release)
	if err != nil {
		inst.From = "the release it installs cannot be told from its name " + quoteName(entry)
		return
	}
	inst.Release = id
	relDir := inner + "/" + release
	var nested []Ident
	tdepsThere := false
	for _, file := range [2]string{"TDEPS", "DEPS"} {
		if iroot == nil {
			break
		}
		body, exists, err := readMetaIn(iroot, relDir, file)
		if err != nil {
			if tl := tooLarge(err); tl != "" {
				sc.problems.add(Problem{Path: storePath(origin, name, version, entry) + "/" + relDir + "/" + file, Kind: ProblemDeps, Blocking: true,
					Message: tl + ", so what this install needs is unknown"})
			}
			continue
		}
		if file == "TDEPS" && exists {
			tdepsThere = true
		}
		nested = addIdents(nested, string(body))
	}
	if tdepsThere {
		inst.Deps, inst.Known = nested, true
		inst.From = StoreDir + "/" + inst.Path + "/" + relDir + "/TDEPS"
		return
	}
	deps, known, from := readArchiveDeps(sc.store.fsRoot, id.ArchiveName(sc.opts.Target), id)
	inst.Deps, inst.Known, inst.From = addIdentList(nested, deps), known, from
}

// readMetaIn reads dir/file under r (dir's components are not symlinks
// outside r: os.Root).
func readMetaIn(r *os.Root, dir, file string) ([]byte, bool, error) {
	sub, err := r.OpenRoot(safeio.Dir(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer sub.Close()
	return readMeta(sub, file)
}

func addIdents(ids []Ident, body string) []Ident {
	for _, l := range strings.Split(body, "\n") {
		if id, err := ParseFullIdent(strings.TrimSpace(l)); err == nil && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func addIdentList(ids, more []Ident) []Ident {
	for _, id := range more {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}
