// Package lease lets a program about to install Habitat packages hold a
// lease on releases, so that no hab-gc removes them meanwhile: an install
// that checked a dependency before hab-gc hid it is the one race hab-gc
// cannot close alone.
//
// A lease is a file FS_ROOT/hab/sup/default/hab-gc/leases/*.lease (Dir)
// listing idents one per line (a release, or origin/name[/version] for
// every installed release matching it; # starts a comment). Its holder
// keeps an exclusive flock(2) on it, so a lease dies with its holder
// however it ends; Acquire locks the file before renaming it into place.
// A lease whose lock can be taken is dead: Read counts it, Sweep removes
// it. Every hab-gc keeps what live leases name (reason "leased"), and
// refuses to plan when one cannot be read.
//
// No lease is read, locked or removed through a symlink at hab-gc or
// leases, and nothing is written through one anywhere below the FS root
// (ErrSymlink); Habitat's directories above are followed when reading.
//
// From a shell, `hab-gc lease IDENT... -- COMMAND` holds a lease for the
// life of COMMAND.
package lease
