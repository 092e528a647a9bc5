// Package lease lets a program about to install Habitat packages hold a
// lease on releases, so that no hab-gc removes them meanwhile: the one race
// hab-gc cannot close alone is an install that checked a dependency before
// hab-gc hid it.
//
// A lease is a file in FS_ROOT/hab/sup/default/hab-gc/leases (Dir),
// outside hab/pkgs, named *.lease, listing idents one per line (a fully
// qualified release, or origin/name[/version] for every installed release
// that satisfies it; lines starting with # are comments). Its holder keeps
// an exclusive flock(2) on it for as long as the lease lives; a lease dies
// with its holder, as the kernel releases the lock when the process ends,
// however it ends. Acquire creates the file under another name, locks it,
// and only then renames it into place, so that a reader never sees a live
// lease unlocked.
//
// Read lists the live leases: a lease file whose lock it can take (shared,
// without waiting) is dead; Read only counts it, Sweep removes it (hab-gc
// sweeps only when it changes the store: a real run, a new lease). Every
// hab-gc, the CLI and the retention package alike, honours live leases as
// roots (code "leased": see retention.Policy.FindRoots); a lease file that
// cannot be read makes the plan refuse (nothing is removed).
//
// The lease directory is hab-gc's own: its hab-gc and leases components are
// opened with O_NOFOLLOW, and a symlink there is refused (ErrSymlink), so
// that no file outside it is ever read, locked or removed as a lease.
// Habitat's directories above it (FS_ROOT/hab/sup/default) are resolved as
// the store's path is when leases are read, so leases there keep
// protecting; but nothing is written below a symlink at any level under
// the FS root: Acquire makes no lease and Sweep removes none through a
// symlinked hab, hab/sup or hab/sup/default (ErrSymlink, naming it).
//
// From a shell, `hab-gc lease IDENT... -- COMMAND` holds a lease for the
// life of COMMAND.
package lease
