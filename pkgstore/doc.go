// Package pkgstore reads a Habitat package store as Habitat reads it.
//
// A store holds every installed release under
// FS_ROOT/hab/pkgs/ORIGIN/NAME/VERSION/RELEASE. Scan answers: which releases
// are installed for the target (TARGET), what each needs (DEPS, TDEPS),
// which services the Supervisor has loaded (spec files) and which release
// each would run, which releases binlinks and Windows binstubs point into,
// which installs are in progress, and what is damaged. It writes nothing but
// its own lock file.
//
//	inv, err := pkgstore.Scan(ctx, "/", pkgstore.Options{})
//	inv.Releases   // sorted by Compare, oldest first per package
//	inv.Services   // loaded services, resolved as the Supervisor resolves them
//	inv.Binlinks   // links into the store
//	inv.Installing // installs in progress and what they need
//	inv.Problems   // everything odd, as data; Blocking ones stop a deletion
//
// An Ident is origin/name[/version[/release]]; ParseIdent validates it so
// that it is always safe to join into a path. Compare orders idents as the
// Supervisor does (Habitat's version rule, not semver: 1.0.2k < 1.0.2), and
// where Habitat's own comparison is not transitive a Service lists every
// release the Supervisor's pick may end on (Resolved and Ambiguous).
//
// The scan reads through an os.Root at hab/pkgs and never follows a
// symlink. On Linux a common release is read through directory descriptors
// (scan_fast.go, about 23 system calls); a release where anything is
// unusual, and every release elsewhere, is read through os.Root
// (scan_slow.go), the path that words the Problem. Every file is opened
// without blocking and read only when it is a regular file of at most 1 MiB.
// A directory Habitat would list as a release but hab-gc cannot read as one
// becomes an Opaque entry whose readable DEPS and TDEPS a caller must keep.
//
// Installs in progress are read as Habitat makes them: the archive unpacked
// into ORIGIN/NAME/VERSION/.hab-pkg-install-RELEASE*, its archive and
// downloads in FS_ROOT/hab/cache/artifacts (Inventory.Fetched).
//
// Store.Lock takes the store's exclusive lock (flock on
// hab/pkgs/.hab-gc.lock), Store.ReadLock a shared one for a reader that may
// go on without it. The lock file is used only when it is a regular file
// with one link owned by the effective user (ErrUnsafeLockFile); a
// LockedError names the holder the kernel reports.
//
// Store.Verify adds to the scan's problems DEPS lines missing from TDEPS,
// specs that match no installed release and dangling binlinks;
// Report.Judge turns them into a check's verdict.
package pkgstore
