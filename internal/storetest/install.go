package storetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

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
	// Target is the active target (default DefaultTarget), and that of
	// the archives Publish and Cache are given without one.
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

// tempChars are the characters of tempfile's random names.
const tempChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// random returns n random tempChars.
func (in *Installer) random(n int) string {
	in.mu.Lock()
	defer in.mu.Unlock()
	b := make([]byte, n)
	for i := range b {
		b[i] = tempChars[in.rnd.IntN(len(tempChars))]
	}
	return string(b)
}
