// Package pkgstore reads a Habitat package store exactly as Habitat does.
//
// A Habitat machine keeps every installed release under
// FS_ROOT/hab/pkgs/ORIGIN/NAME/VERSION/RELEASE. This package answers, for
// such a store: which releases are installed (for which target), what each
// needs (DEPS and TDEPS), which services the Supervisor has loaded (spec
// files) and which release each of them would run, which releases binlinks
// point into, and what is damaged. It never writes, except its own lock file (see Locking).
//
// # Idents
//
// An Ident is origin/name[/version[/release]]. ParseIdent validates it so
// that it is always safe to join into a path:
//
//	id, err := pkgstore.ParseIdent("core/redis/6.2.6/20210603120000")
//	id.FullyQualified()                                     // true
//	id.Satisfies(pkgstore.MustParseIdent("core/redis"))     // true
//
// # Ordering
//
// "Latest" means what it means to the Supervisor: Compare orders idents by
// origin, name, Habitat's version rule, then release. Habitat's version
// rule is not semver: the numeric run is compared part by part, a version
// with an extension sorts below the same version without one, and two
// extensions compare as byte strings, so 1.0.2k < 1.0.2 and
// 1.0.0-alpha10 < 1.0.0-alpha2. HabitatCompareVersions reproduces
// Habitat's comparison step for step, including where it fails;
// CompareVersions extends it to a documented total order that sort can use.
//
// The Supervisor picks the release a spec runs differently: it folds the
// listing, in directory order, with Habitat's PackageIdent::partial_cmp
// (HabitatPartialCompare), which compares raw version strings where the
// version rule fails and is therefore not transitive (2.0 < master <
// v1.0 < 2.0), and keeps the first of equal releases (1.0 and 1.0.0).
// SupervisorPicks returns every release that fold can end on; a resolved
// Service lists them (Resolved and Ambiguous).
//
// # Scanning
//
//	inv, err := pkgstore.Scan(ctx, "/", pkgstore.Options{})
//	for _, r := range inv.Releases { ... }   // sorted oldest first per package
//	inv.Services                             // loaded services, resolved
//	inv.Binlinks                             // links into the store
//	inv.Problems                             // everything odd, as data
//
// Options.OnPhase and Options.Logger follow the scan (PhaseScan): its
// total, the origin/name directories, is known once the top two levels are
// listed, before the releases are read. Package retention reports planning
// and Apply's phases with the same PhaseEvent (ReportPhase).
//
// ScanSettings are the options a user sets, as text (the CLI's --target,
// HAB_BINLINK_DIR and --install-window); ScanSettings.Options applies the
// rules every front end shares: no target is the one Habitat runs as
// (InferTarget), a binlink directory adds to the defaults, and an install
// window has no "none":
//
//	opts, err := pkgstore.ScanSettings{BinlinkDir: os.Getenv("HAB_BINLINK_DIR")}.Options("/")
//	// err wraps ErrTargetAmbiguous, ErrUnknownTarget or ErrBadInstallWindow
//
// A scan reads the store through an os.Root opened at hab/pkgs and never
// enters a symlink: a symlinked origin, name, version or release directory
// is reported, not followed. Below each origin/name directory (opened
// through the os.Root), the common release is read through open directory
// descriptors, one name at a time with O_NOFOLLOW (openat, fstatat): about
// 23 system calls a release, half what os.ReadFile of the same four files
// costs. A release where anything is unusual (a symlink, an unreadable or
// odd file, an ident problem) is read again through an os.Root, the path
// that says what is wrong; tests check both paths find the same.
//
// It lists what Habitat's listing lists: every directory
// ORIGIN/NAME/VERSION/RELEASE, whatever its names (Habitat takes them
// lossily; only a release name that is not UTF-8 is skipped), not named
// .hab-pkg-install*, whose TARGET names the target. Each such directory is
// either a Release or blocking damage: a name that cannot be part of an
// ident (whitespace, control or invisible format characters, bytes that are
// not UTF-8), or a TARGET hab-gc cannot read as Habitat would (a symlink,
// which hab-gc never follows; a file it may not read, which Habitat run as
// root may) makes it an Opaque entry, whose readable DEPS and TDEPS lines a
// caller must keep. Every directory skipped because Habitat skips it too
// is a non-blocking Problem saying why. Damage does not stop a scan; it becomes a
// Problem with the path, a kind and a message. Problems whose Blocking
// field is set leave it unknown what some release or service needs; a
// caller about to delete anything must refuse while Inventory.Blocking is
// non-empty, unless its user explicitly accepts the risk.
//
// Installs in progress are read as Habitat makes them (see Installing):
// the archive is unpacked as an FS root into
// ORIGIN/NAME/VERSION/.hab-pkg-install-RELEASE plus 6 random characters,
// so what the install needs is in that directory's
// hab/pkgs/ORIGIN/NAME/VERSION/RELEASE/TDEPS once unpacked, and in the
// release's archive in FS_ROOT/hab/cache/artifacts before. Archives that
// came into the cache within the install window (Inventory.Fetched) are
// read too: Habitat decides from their TDEPS which installed releases it
// will use before it makes the install directory. So are downloads in
// progress there (".tmpXXXXXX", Installing.Download): Habitat downloads
// every missing dependency before it unpacks any.
//
// Dependencies are stored as Refs, compact handles into the inventory's
// table of interned idents, which keeps a 100,000-release inventory to a
// few hundred bytes per release.
//
// # Locking
//
// Store.Lock takes the store's exclusive lock (flock on hab/pkgs/.hab-gc.lock)
// for a writer, Store.RLock a shared one for a reader. The lock file is
// the only thing this package writes: it is opened without following a
// symlink or blocking, created mode 0600, and used only when the open
// descriptor is a regular file with one link owned by the effective user
// (ErrUnsafeLockFile otherwise). A LockedError names the holder the kernel
// reports, never a pid the file merely claims.
//
// # Reading
//
// Every file is opened without blocking and read only when the descriptor
// is a regular file, and metadata and spec files are read up to 1 MiB: a
// FIFO or an oversized (or sparse) file becomes a Problem, never a hang or
// an out-of-memory crash.
//
// # Verifying
//
// Store.Verify (or Inventory.Verify) returns the full integrity report: all
// scan problems, plus DEPS lines missing from TDEPS, specs that match no
// installed release and dangling binlinks.
//
// # Files
//
// The scan, in the order it runs: store.go (Open, Store), options.go
// (Options and their defaults; settings.go, ScanSettings), scan.go (Scan:
// listing the top two levels, the workers, assembling the Inventory),
// scan_fast.go (a name's releases through directory descriptors),
// scan_slow.go (the same through os.Root, the path that says what is
// wrong), meta.go (TARGET, IDENT, DEPS and TDEPS as Habitat reads them),
// depsstream.go (DEPS beyond the read limit), intern.go (Refs),
// scan_problems.go (how a scan records and words Problems; the kinds are
// in problem.go). Beside releases: installing.go
// (install directories), install_times.go (their latest change, times
// ahead of the clock), artifacts.go (the artifact cache: an install's
// archive, archives fetched), specs.go, binlinks.go and mounts.go.
// inventory.go holds what a scan returns.
package pkgstore
