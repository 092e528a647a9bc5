package pkgstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// DefaultInstallWindow is Options.InstallWindow's default: an install
// directory or cached archive changed within the last hour is taken for an
// install in progress.
const DefaultInstallWindow = time.Hour

// ArtifactCacheDir is Habitat's artifact cache under the FS root.
const ArtifactCacheDir = "hab/cache/artifacts"

// maxInstallWalk bounds the entries of an install directory examined for
// its latest change; past it the install counts as active.
const maxInstallWalk = 20_000

// tempRandomChars is how many random characters tempfile's TempDir adds
// after Habitat's prefix (components/core/src/package/list.rs
// temp_package_directory: prefix ".hab-pkg-install-RELEASE").
const tempRandomChars = 6

// leftover records an install directory ORIGIN/NAME/VERSION/entry:
// hab-gc's own debris, or Habitat's install in progress (or the leftover
// of a killed one). Habitat unpacks the archive as an FS root into it, so
// the release being installed is at entry/hab/pkgs/ORIGIN/NAME/VERSION/RELEASE,
// RELEASE being the temp name's middle. Its needs are read from the
// unpacked TDEPS and DEPS there; while TDEPS is not unpacked yet (an
// archive's metadata may come after its payload), from the release's
// archive in the artifact cache; when neither can be read, Known is false.
func (sc *scanner) leftover(vroot *os.Root, origin, name, version, entry string) {
	rel := origin + "/" + name + "/" + version + "/" + entry
	if strings.HasPrefix(entry, DebrisPrefix) {
		sc.mu.Lock()
		sc.debris = append(sc.debris, rel)
		sc.mu.Unlock()
		sc.problems.add(Problem{Path: storePath(origin, name, version, entry), Kind: ProblemInstallLeftover,
			Message: "left by an interrupted hab-gc run; the next run finishes it"})
		return
	}
	inst := Installing{Path: rel}
	var changed, modified, noticeAt time.Time
	now := sc.opts.Now
	if fi, err := vroot.Lstat(entry); err == nil {
		var ahead bool
		changed, ahead = fileinfo.ChangedAt(fi, now)
		modified, noticeAt = fi.ModTime(), fi.ModTime()
		if !now.IsZero() && modified.After(now) {
			// What check's notice (a young install directory) is judged
			// by: not a time to come.
			noticeAt = changed
		}
		if ahead {
			sc.problems.add(futureProblem(storePath(origin, name, version, entry), fi.ModTime(), fileinfo.ChangeTime(fi), now, 0))
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
	msg := "install directory: an install in progress, or the leftover of a killed one (Habitat never cleans these up)"
	if inst.Release.Origin != "" {
		msg += "; installing " + inst.Release.String()
	}
	if !modified.IsZero() {
		msg += fmt.Sprintf("; modified %s", modified.UTC().Format(time.RFC3339))
		switch {
		case sc.opts.Now.IsZero():
		case modified.After(sc.opts.Now):
			msg += ", ahead of the clock"
		default:
			msg += fmt.Sprintf(", %s old", sc.opts.Now.Sub(modified).Round(time.Second))
		}
	}
	if !inst.Known {
		msg += "; what it needs cannot be read yet (" + inst.From + ")"
	}
	sc.problems.add(Problem{Path: storePath(origin, name, version, entry), Kind: ProblemInstallLeftover, Message: msg, Modified: noticeAt})
	sc.mu.Lock()
	sc.installing = append(sc.installing, inst)
	sc.mu.Unlock()
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

// futureStamp describes the first of the files under an install directory
// whose times are ahead of the clock (fileinfo.ChangedAt), and how many there are.
type futureStamp struct {
	path     string // relative to the walk's root
	mod, chg time.Time
	n        int
}

func (f *futureStamp) add(p string, fi fs.FileInfo) {
	if f.n++; f.n == 1 {
		f.path, f.mod, f.chg = p, fi.ModTime(), fileinfo.ChangeTime(fi)
	}
}

// futureProblem reports a file's times ahead of the clock (path relative
// to the FS root; others: how many more files under the same install
// directory have such times).
func futureProblem(path string, mod, chg, now time.Time, others int) Problem {
	msg := fmt.Sprintf("modified %s, ahead of the clock (%s)", mod.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	switch {
	case chg.IsZero():
		msg += ": the platform has no inode change time, so it counts as changed now"
	case chg.After(now.Add(fileinfo.FutureSlack)):
		msg = fmt.Sprintf("inode change time %s is ahead of the clock (%s): the clock was set back, and it counts as changing until the clock passes it (modified %s)",
			chg.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), mod.UTC().Format(time.RFC3339))
	default:
		msg += fmt.Sprintf(": judged by its inode change time, %s, which no program can set, so it holds removals no longer than the install window from then", chg.UTC().Format(time.RFC3339))
	}
	if others > 0 {
		msg += fmt.Sprintf(" (and %d other file(s) under the same install directory)", others)
	}
	return Problem{Path: path, Kind: ProblemFutureTime, Message: msg}
}

// latestChange returns the latest change of anything under r (without
// following symlinks; each judged against now: fileinfo.ChangedAt), and false when
// it gave up (too many entries, or one it could not read); future is the
// first of those with times ahead of the clock.
func latestChange(r *os.Root, now time.Time) (time.Time, bool, futureStamp) {
	var t time.Time
	var future futureStamp
	n := 0
	complete := true
	fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			complete = false
			return nil
		}
		if n++; n > maxInstallWalk {
			complete = false
			return fs.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			c, ahead := fileinfo.ChangedAt(fi, now)
			if ahead && p != "." { // the directory itself: reported by its caller
				future.add(p, fi)
			}
			if c.After(t) {
				t = c
			}
		}
		return nil
	})
	return t, complete, future
}

// openArtifacts opens FS_ROOT/hab/cache/artifacts for reading, following
// a symlink at any of its levels as Habitat does (a cache moved to a
// bigger disk and linked back): hab-gc only reads archives there (each
// opened without following a symlink, never blocking on a FIFO, within
// hart's limits), and an install reading through the link must be seen.
// The cache clean-up (package artifactcache) still refuses such a cache.
func openArtifacts(fsRoot string) (*os.Root, error) {
	p := filepath.Join(fsRoot, filepath.FromSlash(ArtifactCacheDir))
	// Checked in the open itself: a FIFO there fails at once (a Stat
	// first could see a directory swapped for a FIFO after).
	return safeio.OpenRoot(p)
}

// readArchiveDeps reads what the archive file in the artifact cache names
// in TDEPS and DEPS, when it is want's archive. known is true when TDEPS
// was read, or the whole archive was and has none; from says where they
// were read, or why they could not be.
func readArchiveDeps(fsRoot, file string, want Ident) (deps []Ident, known bool, from string) {
	from = ArtifactCacheDir + "/" + file
	cache, err := openArtifacts(fsRoot)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, "its archive is not in the artifact cache: there is none"
	}
	if err != nil {
		return nil, false, "the artifact cache cannot be read: " + err.Error()
	}
	defer cache.Close()
	a, err := readArchive(cache, file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, "its archive " + from + " is not in the artifact cache"
	}
	if err != nil {
		return nil, false, from + ": " + err.Error()
	}
	if a.Ident != want.String() {
		return nil, false, fmt.Sprintf("%s holds %s, not %s", from, a.Ident, want)
	}
	deps = addIdentList(parseIdents(a.TDeps), parseIdents(a.Deps))
	if a.TDeps == nil && !a.Complete {
		return deps, false, from + ": TDEPS not found within the bounds hab-gc reads"
	}
	return deps, true, from
}

// readArchive reads a regular file of the cache (never through a
// symlink, never blocking on a FIFO) with hart's default limits.
func readArchive(cache *os.Root, file string) (*hart.Archive, error) {
	if strings.ContainsAny(file, "/\x00") || file == "." || file == ".." {
		return nil, fmt.Errorf("not a file name: %s", quoteName(file))
	}
	f, err := cache.OpenFile(file, os.O_RDONLY|oNoFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("a %s, not a regular file", fi.Mode().Type())
	}
	return hart.Read(io.LimitReader(f, fi.Size()), hart.DefaultLimits(), hart.WantDeps)
}

func parseIdents(lines []string) []Ident {
	var ids []Ident
	for _, l := range lines {
		if id, err := ParseFullIdent(l); err == nil && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// readFetched records the archives that came into the artifact cache
// within the install window (by their modification or inode change time:
// Habitat renames a download into place) and whose release of the scan's
// target is not installed (Inventory.Fetched). Without Options.Now none is
// read.
func (s *Store) readFetched(inv *Inventory, sc *scanner) {
	if sc.opts.Now.IsZero() {
		return
	}
	cache, err := openArtifacts(s.fsRoot)
	if err != nil {
		return // no cache: nothing fetched
	}
	defer cache.Close()
	es, err := readDir(cache, ".")
	if err != nil {
		sc.problems.add(Problem{Path: ArtifactCacheDir, Kind: ProblemUnreadable,
			Message: "the artifact cache cannot be read, so archives being installed cannot be seen: " + err.Error()})
	}
	studios := &studioStores{fsRoot: s.fsRoot}
	defer studios.close()
	for _, e := range es {
		n := e.Name()
		download := isDownloadTemp(n)
		if !download && e.Type()&fs.ModeSymlink != 0 && !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".hart") {
			if inst, ok := sc.symlinkedArchive(cache, e, inv, studios); ok {
				inv.Fetched = append(inv.Fetched, inst)
			}
			continue
		}
		if !download && (strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".hart")) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		changed, ahead := fileinfo.ChangedAt(fi, sc.opts.Now)
		if ahead {
			sc.problems.add(futureProblem(ArtifactCacheDir+"/"+n, fi.ModTime(), fileinfo.ChangeTime(fi), sc.opts.Now, 0))
		}
		if sc.opts.Now.Sub(changed) >= sc.opts.InstallWindow {
			continue
		}
		if download {
			// Habitat has not read it yet, but an install is running:
			// what the package being installed found "Using" shows
			// nowhere until its own install directory exists.
			inv.Fetched = append(inv.Fetched, Installing{Path: ArtifactCacheDir + "/" + n, Active: true, Changed: changed, Download: true,
				From: ArtifactCacheDir + "/" + n + ": a download in progress"})
			continue
		}
		inst := Installing{Path: ArtifactCacheDir + "/" + n, Active: true, Changed: changed, From: ArtifactCacheDir + "/" + n}
		a, err := readArchive(cache, n)
		switch {
		case errors.Is(err, hart.ErrLimit):
			inst.From += ": " + err.Error()
		case err != nil:
			continue // not an archive Habitat could install
		default:
			id, perr := ParseFullIdent(a.Ident)
			// A target not read (a bound stopped the read) may be this one.
			otherTarget := a.Target != sc.opts.Target && (a.Target != "" || a.Complete)
			if perr != nil || otherTarget || inv.Installed(id) != nil || studios.installed(id) {
				continue
			}
			inst.Release = id
			inst.Deps = addIdentList(parseIdents(a.TDeps), parseIdents(a.Deps))
			inst.Known = a.TDeps != nil || a.Complete
			if !inst.Known {
				inst.From += ": TDEPS not found within the bounds hab-gc reads"
			}
		}
		inv.Fetched = append(inv.Fetched, inst)
	}
}

// symlinkedArchive judges a symlink named *.hart in the artifact cache.
// Habitat uses it as the archive it names (install.rs is_artifact_cached:
// Path::is_file follows symlinks); hab-gc does not read through it, so it
// cannot tell the release from the archive. Changed within the install
// window (the link itself, or a regular file it leads to inside the
// cache), it makes every removal wait, unless every ident its name is the
// archive name of (ORIGIN-NAME-VERSION-RELEASE-TARGET.hart, origins,
// names and versions holding hyphens) is installed here or in a Studio:
// Habitat installing any other reading finds its archive cached through
// this link. A link to something that is not a regular file inside the
// cache, or to nothing, is not an archive Habitat would use; one leading
// outside the cache is judged by the link's own times.
func (sc *scanner) symlinkedArchive(cache *os.Root, e fs.DirEntry, inv *Inventory, studios *studioStores) (Installing, bool) {
	n := e.Name()
	fi, err := e.Info()
	if err != nil {
		return Installing{}, false
	}
	now := sc.opts.Now
	changed, ahead := fileinfo.ChangedAt(fi, now)
	if ahead {
		sc.problems.add(futureProblem(ArtifactCacheDir+"/"+n, fi.ModTime(), fileinfo.ChangeTime(fi), now, 0))
	}
	switch to, err := cache.Stat(n); {
	case errors.Is(err, fs.ErrNotExist):
		return Installing{}, false
	case err == nil && !to.Mode().IsRegular():
		return Installing{}, false
	case err == nil:
		c, ahead := fileinfo.ChangedAt(to, now)
		if ahead {
			sc.problems.add(futureProblem(ArtifactCacheDir+"/"+n+" (the file the symlink leads to)", to.ModTime(), fileinfo.ChangeTime(to), now, 0))
		}
		if c.After(changed) {
			changed = c
		}
	}
	if sc.opts.Now.Sub(changed) >= sc.opts.InstallWindow {
		return Installing{}, false
	}
	fetched := Installing{Path: ArtifactCacheDir + "/" + n, Active: true, Changed: changed,
		From: ArtifactCacheDir + "/" + n + ": a symlink, which Habitat reads through and hab-gc does not"}
	readings := 0
	// The first reading not installed settles it (a name crafted with
	// many hyphens costs no more than one that is Habitat's).
	for id := range archiveNameIdents(n, sc.opts.Target) {
		readings++
		if inv.Installed(id) == nil && !studios.installed(id) {
			return fetched, true
		}
	}
	return fetched, readings == 0
}

// archiveNameIdents yields every ident whose archive of target is named
// name (ORIGIN-NAME-VERSION-RELEASE-TARGET.hart, Habitat's
// PackageArchive file name): origins, names and versions may hold
// hyphens, so a name can be read more than one way.
func archiveNameIdents(name, target string) iter.Seq[Ident] {
	return func(yield func(Ident) bool) {
		rest, ok := strings.CutSuffix(name, "-"+target+".hart")
		if !ok {
			return
		}
		parts := strings.Split(rest, "-")
		if len(parts) > 32 {
			return // not read (the readings grow as the cube): not known to be installed
		}
		// parts[:i] origin, parts[i:j] name, parts[j:k] version, parts[k:] release.
		for k := len(parts) - 1; k >= 3; k-- {
			release := strings.Join(parts[k:], "-")
			for j := 2; j < k; j++ {
				for i := 1; i < j; i++ {
					id, err := ParseFullIdent(strings.Join(parts[:i], "-") + "/" + strings.Join(parts[i:j], "-") + "/" +
						strings.Join(parts[j:k], "-") + "/" + release)
					if err == nil && !yield(id) {
						return
					}
				}
			}
		}
	}
}

// isDownloadTemp reports whether name is Habitat's download temp file in
// the artifact cache: AtomicWriter (components/core/src/fs.rs) makes a
// tempfile::NamedTempFile there, ".tmp" and 6 random characters.
func isDownloadTemp(name string) bool {
	r, ok := strings.CutPrefix(name, ".tmp")
	return ok && len(r) == tempRandomChars && !strings.ContainsAny(r, "./")
}
