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

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/internal/fileinfo"
	"github.com/hab-gc/hab-gc/internal/safeio"
)

// ArtifactCacheDir is Habitat's artifact cache under the FS root.
const ArtifactCacheDir = "hab/cache/artifacts"

// openArtifacts opens the artifact cache following symlinks, as Habitat
// does (a cache moved to a bigger disk): an install through the link must
// be seen. Only its archives are read, each never through a symlink.
func openArtifacts(fsRoot string) (*os.Root, error) {
	p := filepath.Join(fsRoot, filepath.FromSlash(ArtifactCacheDir))
	return safeio.OpenRoot(p)
}

// readArchiveDeps reads the TDEPS and DEPS of want's cached archive; known:
// TDEPS was read (or the whole archive has none).
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

// readFetched records Inventory.Fetched (none without Options.Now).
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
		if inst, ok := sc.fetchedArchive(cache, e, download, inv, studios); ok {
			inv.Fetched = append(inv.Fetched, inst)
		}
	}
}

// fetchedArchive judges a cached archive, or with download Habitat's
// download temp file: changed within the install window, an install to
// come unless its release is installed here or in a Studio.
func (sc *scanner) fetchedArchive(cache *os.Root, e fs.DirEntry, download bool, inv *Inventory, studios *studioStores) (Installing, bool) {
	n := e.Name()
	if !download && (strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".hart")) || !e.Type().IsRegular() {
		return Installing{}, false
	}
	fi, err := e.Info()
	if err != nil {
		return Installing{}, false
	}
	changed, ahead := fileinfo.ChangedAt(fi, sc.opts.Now)
	if ahead {
		sc.problems.add(futureProblem(ArtifactCacheDir+"/"+n, fi.ModTime(), fileinfo.ChangeTime(fi), sc.opts.Now, 0))
	}
	if sc.opts.Now.Sub(changed) >= sc.opts.InstallWindow {
		return Installing{}, false
	}
	if download {
		return Installing{Path: ArtifactCacheDir + "/" + n, Active: true, Changed: changed, Download: true,
			From: ArtifactCacheDir + "/" + n + ": a download in progress"}, true
	}
	inst := Installing{Path: ArtifactCacheDir + "/" + n, Active: true, Changed: changed, From: ArtifactCacheDir + "/" + n}
	a, err := readArchive(cache, n)
	switch {
	case errors.Is(err, hart.ErrLimit):
		inst.From += ": " + err.Error()
	case err != nil:
		return Installing{}, false // not an archive Habitat could install
	default:
		id, perr := ParseFullIdent(a.Ident)
		// A target not read (a bound stopped the read) may be this one.
		otherTarget := a.Target != sc.opts.Target && (a.Target != "" || a.Complete)
		if perr != nil || otherTarget || inv.Installed(id) != nil || studios.installed(id) {
			return Installing{}, false
		}
		inst.Release = id
		inst.Deps = addIdentList(parseIdents(a.TDeps), parseIdents(a.Deps))
		inst.Known = a.TDeps != nil || a.Complete
		if !inst.Known {
			inst.From += ": TDEPS not found within the bounds hab-gc reads"
		}
	}
	return inst, true
}

// symlinkedArchive judges a *.hart symlink in the cache, which Habitat
// uses as the archive (install.rs is_artifact_cached) and hab-gc does not
// read through: changed within the install window, it makes every removal
// wait unless every ident its name may read as is installed.
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
	for id := range archiveNameIdents(n, sc.opts.Target) {
		readings++
		if inv.Installed(id) == nil && !studios.installed(id) {
			return fetched, true
		}
	}
	return fetched, readings == 0
}

// archiveNameIdents yields every ident whose archive of target is name
// (ORIGIN-NAME-VERSION-RELEASE-TARGET.hart; parts may hold hyphens).
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

// isDownloadTemp: AtomicWriter's temp file, ".tmp" and 6 random characters
// (components/core/src/fs.rs).
func isDownloadTemp(name string) bool {
	r, ok := strings.CutPrefix(name, ".tmp")
	return ok && len(r) == tempRandomChars && !strings.ContainsAny(r, "./")
}
