package storetest

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Step is a point in Habitat's install sequence at which Installer.At is
// called.
type Step string

const (
	// StepDownloading: the archive is written to the cache as a
	// .tmpXXXXXX file, not yet renamed (Point.Path is that file).
	StepDownloading Step = "downloading"
	// StepFetched: the archive was just renamed into the cache as
	// ORIGIN-NAME-VERSION-RELEASE-TARGET.hart.
	StepFetched Step = "fetched"
	// StepCached: the archive was already in the cache and is used as
	// it is (its mtime may be days old).
	StepCached Step = "cached"
	// StepUsing: a TDEPS entry of the package being installed is
	// installed, "Using", and will not be installed again.
	StepUsing Step = "using"
	// StepDepsChecked: every TDEPS entry is Using or its archive is in
	// the cache; nothing is unpacked yet and no temp directory exists.
	StepDepsChecked Step = "deps-checked"
	// StepTempDir: the temp directory
	// ORIGIN/NAME/VERSION/.hab-pkg-install-RELEASEXXXXXX exists, empty.
	StepTempDir Step = "temp-dir"
	// StepUnpacking: one more archive entry was unpacked (Point.Entry,
	// Point.Done of Point.Total).
	StepUnpacking Step = "unpacking"
	// StepUnpacked: every entry is unpacked, not yet renamed.
	StepUnpacked Step = "unpacked"
	// StepRenamed: TEMP/hab/pkgs/O/N/V/R was renamed to O/N/V/R; TEMP
	// still exists.
	StepRenamed Step = "renamed"
	// StepInstalled: TEMP is removed; this release is installed.
	StepInstalled Step = "installed"
)

// Point is where an install is when Installer.At is called.
type Point struct {
	Step Step
	// Ident is the release the step is about: the package asked for, or
	// one of its TDEPS.
	Ident string
	// Top is true when Ident is the package asked for.
	Top bool
	// Path is the absolute path the step is about: the cached archive
	// (or its .tmp file), the temp directory (StepTempDir to
	// StepRenamed), the release directory (StepInstalled, StepUsing).
	Path string
	// Entry is the archive entry just unpacked (StepUnpacking), Done
	// how many are, of Total.
	Entry       string
	Done, Total int
}

// Installer installs releases into the store under Root exactly as
// `hab pkg install` does, calling At at every point of the sequence so that
// a test can pause there (block in At), act, or stop the install (At
// returns an error: a killed install, which leaves what it wrote).
//
// The sequence, read from Habitat's source (habitat-sh/habitat):
//
//  1. components/common/src/command/package/install.rs install_package:
//     a package that is installed (PackageInstall::load,
//     components/core/src/package/install.rs: its release directory is
//     listed, a TARGET of the active target) is "Using"; else
//     get_cached_artifact uses the archive in FS_ROOT/hab/cache/artifacts
//     when is_artifact_cached, or fetch_artifact downloads it there
//     (components/builder-api-client/src/builder.rs download: an
//     AtomicWriter, components/core/src/fs.rs, writes a
//     tempfile::NamedTempFile ".tmpXXXXXX" in the cache directory, syncs
//     it, sets 0644 and renames it to ORIGIN-NAME-VERSION-RELEASE-TARGET.hart).
//  2. The archive's TDEPS are read from the archive
//     (components/core/src/package/archive.rs tdeps). Each installed one
//     is "Using"; each missing one's archive is got the same way and put
//     in front of the queue (push_front), the package itself last.
//  3. unpack_artifact, for each queued archive in order:
//     temp_package_directory (components/core/src/package/list.rs) makes
//     ORIGIN/NAME/VERSION (0755) and in it a tempdir named
//     ".hab-pkg-install-RELEASE" plus 6 random characters; the archive is
//     unpacked as an FS root into it (PackageArchive::unpack: tar-rs
//     Archive::unpack with preserved permissions and mtimes: non-directory
//     entries in archive order, each creating its parent directories,
//     then the directory entries, deepest first), so the files land at
//     TEMP/hab/pkgs/O/N/V/R/... with the archive's (old) mtimes.
//  4. TEMP/hab/pkgs/O/N/V/R is renamed to O/N/V/R (retried while it fails
//     and the release is not installed), VERSION is synced, and the
//     TempDir is dropped: TEMP is removed.
//
// The signature check (verify_artifact) and install hooks are not
// imitated. An Installer may run several installs at once.
type Installer struct {
	// Root is the FS root; the store is Root/hab/pkgs.
	Root string
	// Target is the active target (default DefaultTarget).
	Target string
	// At is called at every Point; nil is a no-op.
	At func(Point) error

	mu    sync.Mutex
	depot map[string][]byte
	rnd   *rand.Rand
}

// NewInstaller returns an Installer for the store under root whose temp
// names come from seed.
func NewInstaller(root string, seed uint64) *Installer {
	return &Installer{Root: root, depot: map[string][]byte{}, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Publish makes archives downloadable (as Builder would serve them).
func (in *Installer) Publish(as ...Archive) *Installer {
	for _, a := range as {
		in.PublishHart(a.Ident, a.Bytes())
	}
	return in
}

// PublishHart makes a .hart downloadable as ident's archive.
func (in *Installer) PublishHart(ident string, hart []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.depot[ident] = hart
}

// CacheDir is the artifact cache's absolute path.
func (in *Installer) CacheDir() string {
	return filepath.Join(in.Root, "hab", "cache", "artifacts")
}

// ArchivePath is where ident's archive is cached.
func (in *Installer) ArchivePath(ident string) string {
	return filepath.Join(in.CacheDir(), strings.ReplaceAll(ident, "/", "-")+"-"+in.target()+".hart")
}

// Cache puts a's archive in the cache as an earlier install or download
// left it, modified age ago (its change time is now: the kernel sets it).
func (in *Installer) Cache(a Archive, age time.Duration) error {
	in.Publish(a)
	p := in.ArchivePath(a.Ident)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, a.Bytes(), 0o644); err != nil {
		return err
	}
	t := time.Now().Add(-age)
	return os.Chtimes(p, t, t)
}

func (in *Installer) target() string {
	if in.Target == "" {
		return DefaultTarget
	}
	return in.Target
}

func (in *Installer) at(p Point) error {
	if in.At == nil {
		return nil
	}
	return in.At(p)
}

// releaseDir is a release's absolute path.
func (in *Installer) releaseDir(ident string) string {
	return filepath.Join(in.Root, "hab", "pkgs", filepath.FromSlash(ident))
}

// Installed reports whether Habitat would load ident: its release
// directory has a TARGET naming the active target.
func (in *Installer) Installed(ident string) bool {
	b, err := os.ReadFile(filepath.Join(in.releaseDir(ident), "TARGET"))
	return err == nil && strings.TrimSpace(string(b)) == in.target()
}

type cachedArchive struct {
	ident   string
	top     bool
	path    string
	entries []ArchiveEntry
}

// Install installs ident and its TDEPS as `hab pkg install` does.
func (in *Installer) Install(ident string) error {
	if in.Installed(ident) {
		return in.at(Point{Step: StepUsing, Ident: ident, Top: true, Path: in.releaseDir(ident)})
	}
	top, err := in.getCached(ident, true)
	if err != nil {
		return err
	}
	tdeps := metaLines(top.entries, "TDEPS")
	queue := []*cachedArchive{top}
	for _, d := range tdeps {
		if in.Installed(d) {
			if err := in.at(Point{Step: StepUsing, Ident: d, Path: in.releaseDir(d)}); err != nil {
				return err
			}
			continue
		}
		a, err := in.getCached(d, false)
		if err != nil {
			return err
		}
		queue = append([]*cachedArchive{a}, queue...)
	}
	if err := in.at(Point{Step: StepDepsChecked, Ident: ident, Top: true, Path: top.path}); err != nil {
		return err
	}
	for _, a := range queue {
		if err := in.unpack(a); err != nil {
			return fmt.Errorf("install %s: %w", a.ident, err)
		}
	}
	return nil
}

// getCached is get_cached_artifact: fetch unless cached, then read.
func (in *Installer) getCached(ident string, top bool) (*cachedArchive, error) {
	p := in.ArchivePath(ident)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		if err := in.at(Point{Step: StepCached, Ident: ident, Top: top, Path: p}); err != nil {
			return nil, err
		}
	} else if err := in.fetch(ident, top, p); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	es, err := ReadHart(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &cachedArchive{ident: ident, top: top, path: p, entries: es}, nil
}

// fetch is fetch_artifact's download through an AtomicWriter.
func (in *Installer) fetch(ident string, top bool, dst string) error {
	in.mu.Lock()
	hart, ok := in.depot[ident]
	in.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: not published", ident)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	var f *os.File
	for {
		n := filepath.Join(filepath.Dir(dst), ".tmp"+in.random(6))
		var err error
		if f, err = os.OpenFile(n, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			break
		} else if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	_, err := f.Write(hart)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = in.at(Point{Step: StepDownloading, Ident: ident, Top: top, Path: f.Name()})
	}
	if err != nil {
		os.Remove(f.Name()) // NamedTempFile's drop
		return err
	}
	if err := os.Rename(f.Name(), dst); err != nil {
		return err
	}
	return in.at(Point{Step: StepFetched, Ident: ident, Top: top, Path: dst})
}

const tempChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func (in *Installer) random(n int) string {
	in.mu.Lock()
	defer in.mu.Unlock()
	b := make([]byte, n)
	for i := range b {
		b[i] = tempChars[in.rnd.IntN(len(tempChars))]
	}
	return string(b)
}

// unpack is unpack_artifact. PackageArchive::unpack opens the cached
// archive again (artifact::get_archive_reader(&self.path)), so one removed
// from the cache since it was read fails the install.
func (in *Installer) unpack(a *cachedArchive) error {
	final := in.releaseDir(a.ident)
	base := filepath.Dir(final)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	var temp string
	for {
		temp = filepath.Join(base, ".hab-pkg-install-"+filepath.Base(final)+in.random(6))
		err := os.Mkdir(temp, 0o700) // tempfile's TempDir mode
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	pt := Point{Ident: a.ident, Top: a.top, Path: temp, Total: len(a.entries)}
	step := func(s Step) error { pt.Step = s; return in.at(pt) }
	if err := step(StepTempDir); err != nil {
		return err
	}
	b, err := os.ReadFile(a.path)
	if err != nil {
		return err
	}
	if a.entries, err = ReadHart(b); err != nil {
		return fmt.Errorf("%s: %w", a.path, err)
	}
	pt.Total = len(a.entries)
	var dirs []ArchiveEntry
	for _, e := range a.entries {
		if e.IsDir() {
			dirs = append(dirs, e)
			continue
		}
		if err := unpackEntry(temp, e); err != nil {
			return err
		}
		pt.Done, pt.Entry = pt.Done+1, e.Name
		if err := step(StepUnpacking); err != nil {
			return err
		}
	}
	slices.SortStableFunc(dirs, func(x, y ArchiveEntry) int {
		return strings.Compare(strings.TrimSuffix(y.Name, "/"), strings.TrimSuffix(x.Name, "/"))
	})
	for _, e := range dirs {
		if err := unpackEntry(temp, e); err != nil {
			return err
		}
		pt.Done, pt.Entry = pt.Done+1, e.Name
		if err := step(StepUnpacking); err != nil {
			return err
		}
	}
	pt.Entry = ""
	if err := step(StepUnpacked); err != nil {
		return err
	}
	from := filepath.Join(temp, "hab", "pkgs", filepath.FromSlash(a.ident))
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := os.Rename(from, final)
		if err == nil || in.Installed(a.ident) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rename %s to %s: %w", from, final, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d, err := os.Open(base); err == nil {
		d.Sync()
		d.Close()
	}
	if err := step(StepRenamed); err != nil {
		return err
	}
	if err := os.RemoveAll(temp); err != nil {
		return err
	}
	pt.Path = final
	return step(StepInstalled)
}

// unpackEntry writes one entry under root as tar-rs unpack_in does: the
// path must stay inside root (a ".." entry is skipped), parents are made,
// mode and mtime are the entry's.
func unpackEntry(root string, e ArchiveEntry) error {
	name := strings.TrimPrefix(path.Clean("/"+e.Name), "/")
	if name == "" || slices.Contains(strings.Split(e.Name, "/"), "..") {
		return nil
	}
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(e.Mode) & fs.ModePerm
	switch {
	case e.IsDir():
		if err := os.Mkdir(p, mode); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	case e.Link != "":
		if err := os.Symlink(e.Link, p); err != nil {
			return err
		}
		return nil
	default:
		if err := os.WriteFile(p, []byte(e.Body), mode); err != nil {
			return err
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	}
	return os.Chtimes(p, e.ModTime, e.ModTime)
}

// metaLines returns the trimmed, non-empty lines of an archive's metadata
// file: an entry whose path matches archive.rs METAFILE_REGXS,
// ^/?(?:opt/)?hab/pkgs/([^/]+)/([^/]+)/([^/]+)/([^/]+)/FILE$ (the last such
// entry wins, as its Metadata map is overwritten).
func metaLines(es []ArchiveEntry, file string) []string {
	var out []string
	for _, e := range es {
		n := strings.TrimPrefix(strings.TrimPrefix(e.Name, "/"), "opt/")
		parts := strings.Split(n, "/")
		if e.IsDir() || len(parts) != 7 || parts[0] != "hab" || parts[1] != "pkgs" || parts[6] != file ||
			slices.Contains(parts[2:6], "") {
			continue
		}
		out = out[:0]
		for _, l := range strings.Split(strings.TrimSpace(e.Body), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}
