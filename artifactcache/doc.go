// Package artifactcache cleans Habitat's artifact cache,
// FS_ROOT/hab/cache/artifacts, where `hab pkg install` leaves every
// package archive (.hart) it downloads.
//
// Each file is identified by reading it, never by its name (origins and
// names may contain "-"): its header (HART-1, the signing key's name, the
// hash type, the signature, a blank line) and its xz tar's entries up to
// IDENT and TARGET, as Habitat identifies an archive (package hart): the
// entries hab/pkgs/ORIGIN/NAME/VERSION/RELEASE/FILE (also under "/" or
// "opt/"), skipping the parent directories older archives start with.
// Reads are bounded.
//
// Plan decides for each file: a .hart whose release the retention plan
// keeps stays; one whose release is not installed, or is removed by the
// run, goes, except the newest KeepLatest of each origin/name (an offline
// rollback). A file that is not a readable .hart, a dot-file (a download
// in progress), anything that is not a regular file, and anything younger
// than MinAge is reported and left alone.
//
// Remove deletes the files to remove through an os.Root of the cache
// directory, never following a symlink: each is checked to be the very
// file that was read (device, inode, size, modification time), renamed to
// a dot-name, checked again, and unlinked. The caller holds the store's
// lock.
//
// # With a store's plan
//
// `hab-gc run --cache` does what an importer cleaning the cache beside a
// prune should do: StateOf turns the store's retention.Plan into the
// ReleaseStateFunc Plan takes, so that an archive Habitat is about to unpack
// (an install directory of its release, a fresh archive, a fresh symlink
// named as its archive: BeingInstalled) stays; then, after the plan's
// Apply and under the store's lock, Recheck judges the removals again (a
// release Apply kept at its last check, an install begun since the
// plan), and Remove deletes what is still to go. Package prune does all of
// this beside the store's plan and Apply in one call (prune.Run with
// Options.Cache), disk pressure (Limit, here, on the archives first)
// included.
package artifactcache
