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

const defaultInstallWindow = time.Hour

// tempRandomChars: tempfile's TempDir after ".hab-pkg-install-RELEASE"
// (core/src/package/list.rs temp_package_directory).
const tempRandomChars = 6

// leftover records an install directory: Habitat unpacks the archive into
// it as an FS root. Its needs are read from the unpacked TDEPS and DEPS,
// else from the cached archive.
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
	// Else the one release directory unpacked there.
	var es []fs.DirEntry
	if iroot != nil {
		if l, err := readDir(iroot, inner); err == nil {
			es = l
		}
	}
	if !slices.ContainsFunc(es, func(e fs.DirEntry) bool { return e.Name() == release }) {
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
