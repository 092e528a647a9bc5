// Package retention decides which releases of a Habitat package store to
// keep and which to remove, and says why for every one of them.
//
// Deciding is separate from deleting. Compute turns an inventory
// (pkgstore), a Policy and the current time into a Plan: for every
// installed release, Keep or Remove, with reasons as data (a stable Code
// and a sentence). Nothing is touched; a Plan is safe to print, diff and
// explain (Plan.Why). Carrying it out is Apply's job, which re-checks
// everything on disk first.
//
// # How a plan is made
//
// Like a tracing garbage collector, the plan marks from roots and sweeps
// the rest. Roots, each kept with its reason:
//
//   - the newest KeepLatest releases of every origin/name, in Habitat's
//     ordering (pkgstore.Compare);
//   - every release of chef/hab (and core/hab) while SelfKeepLatest is
//     unset, as Habitat's own uninstall never removes one; otherwise, and
//     for chef/hab-sup and chef/hab-launcher, the newest SelfKeepLatest
//     (default KeepLatest, at least one) of Habitat's own packages;
//   - the release each loaded service's spec resolves to, and any release
//     Habitat could not order against it (the Supervisor might run it);
//   - every release a RootFinder of the policy reports in use (Root): a
//     running process (package runroots, code in-use), the Supervisor's
//     gateway (package supervisor, code loaded-service); PlanStore asks
//     them, and Apply asks again under the lock and before deleting;
//   - every release a binlink points into;
//   - every release an Exclude pins ("core/redis", "core/redis/4.0.14",
//     "core/postgresql@>=11 <12" with Masterminds/semver constraints; a
//     version a constraint cannot judge, not being semver, is pinned too);
//   - every release installed less than MinAge ago (default one hour);
//   - releases whose IDENT disagrees with their path, and, when damage is
//     allowed, damaged releases;
//   - the last release of a package that ships an uninstall hook, which
//     hab-gc does not run;
//   - every release with a mount point at or under its directory (code
//     mount-point), from the mount table the scan read
//     (pkgstore.Inventory.Mounts; mount points belong to a mount
//     namespace, and this is the caller's).
//   - what installs in progress need (code install-in-progress): every
//     installed release named by an install directory's TDEPS (or, until
//     that is unpacked, by its archive's in the artifact cache), or by a
//     fresh archive in the cache whose release is not installed
//     (pkgstore.Inventory.Installing, Fetched); and, while any install
//     directory or download in the artifact cache (Habitat's .tmpXXXXXX,
//     Installing.Download) changed within the scan's install window, every
//     release: removals wait for the install to end.
//
// Then everything reachable from a root through DEPS or TDEPS is kept, with
// a reason naming the chain ("dependency of core/openssl/..., needed by
// core/redis/... (loaded service redis runs it ...)"). Everything else is
// removed. With Only set, removals are limited to the named packages (or
// versions: core/redis/6.2, which also keeps the newest KeepLatest of that
// version) and to the dependencies that only their removed releases needed.
//
// A plan limited to some packages (Only, ServicesOnly) keeps every
// release outside them, and what those need, whatever else protects it
// (CodeOutsideOnly).
//
// A live lease (package lease) on a release is a root too (CodeLeased):
// Policy.FindRoots reads the leases of the store's FS root whatever the
// policy's RootFinders. Reading them changes nothing; Apply, under the
// store's lock, removes dead ones first (lease.Sweep).
//
// # Safe by default
//
// The zero Policy is refused (ErrEmptyPolicy): KeepLatest must be said,
// KeepNone to keep none by count. Every other zero value is the safe
// default, as in the CLI and TOML files: MinAge 0 is DefaultMinAge
// (NoMinAge: none), ApplyOptions.Settle 0 is DefaultSettle (NoSettle),
// ApplyOptions.LockTimeout 0 is DefaultLockTimeout (NoLockWait).
// ParseDuration reads these settings as the CLI does ("none", "0").
// Counts a user gives are read the same way everywhere: KeepCount (0 keeps
// none by count), SelfKeepCount (0 refused: Habitat's own packages keep
// one), ParsePackageCount then CheckPackageCounts (per-package counts,
// each package once, none of Habitat's), ParsePin and ParseOnly (no
// wildcards).
//
// One clock: the now given to Compute or PlanStore is Plan.Now, and Apply
// revalidates with it. Apply refuses a plan made from another store
// (ErrOtherStore: the store directory's device and inode are recorded in
// the inventory).
//
// # Damage fails safe
//
// If the scan found blocking problems (unreadable or malformed DEPS/TDEPS,
// an unparseable spec, an unreadable or symlinked directory), Compute
// refuses with a *DamagedError that errors.Is ErrDamaged and names each
// problem, unless Policy.AllowDamaged is set.
//
// # Applying a plan
//
// Plan.Apply re-checks everything under the store's lock, hides the
// releases it removes (dependents first, so that one more run after a
// crash at any point converges), waits, checks again and deletes. It
// never leaves a release's file system: a release with a mount point
// inside is kept (CodeMountPoint), and deletion checks each directory's
// device and mount ID before entering it. A cancelled context puts back
// every hidden release whose deletion has not started, and starts no
// more; the
// Result accounts for every planned removal (StatusNotAttempted for those
// never reached). See Apply for when a Result comes with an error.
//
// # Guarantees
//
// Property tests check on thousands of random stores that no removed
// release is needed by a kept one, every root is kept, each package keeps
// at least min(N, releases) of its newest, and planning again after
// removing the plan's releases removes nothing more.
package retention
