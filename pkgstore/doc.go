// Package pkgstore reads a Habitat package store as Habitat reads it.
//
// A store holds every installed release under
// FS_ROOT/hab/pkgs/ORIGIN/NAME/VERSION/RELEASE. Scan returns an Inventory:
// the releases installed for the target (TARGET) and what each needs
// (DEPS, TDEPS), the services the Supervisor has loaded and the releases
// each may run, binlinks and Windows binstubs into the store, installs in
// progress, and every Problem met; Blocking ones stop a deletion. Compare
// orders idents as the Supervisor does (Habitat's version rule, not
// semver).
//
// The scan reads through an os.Root at hab/pkgs, never follows a symlink,
// opens every file without blocking and reads only regular files of at
// most 1 MiB. On Linux a common release is read through directory
// descriptors (scan_fast.go); anything unusual, and every release
// elsewhere, through os.Root (scan_slow.go), which words the Problem. A
// directory Habitat lists as a release but hab-gc cannot read is Opaque.
//
// Store.Lock takes the store's exclusive lock (flock on
// hab/pkgs/.hab-gc.lock), Store.ReadLock a shared one; Store.Verify adds
// the checks of `hab-gc check`.
package pkgstore
