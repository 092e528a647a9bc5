// Package runroots finds the releases of a Habitat package store that
// running processes use (runtime roots, as Nix's findRuntimeRoots), so
// that no release is pulled from under a running program.
//
// It reads, for every process in /proc, the links exe, cwd, root and
// fd/*, the files in maps, and the store paths named in environ and
// cmdline. A path in ORIGIN/NAME/VERSION/RELEASE of the store, or in the
// directory hab-gc hid a release under (pkgstore.DebrisPrefix), is a use
// of that release. Paths in another view (a bind mount, a chroot, another
// mount namespace) are matched through /proc/PID/root and by device and
// inode. A descriptor on an archive of the artifact cache or in an
// install directory, or a running `hab pkg install`, is an install in
// progress (held): what it needs is kept and removals wait.
//
// A scan that cannot see every process whole (not root, no
// CAP_SYS_PTRACE, hidepid, a child PID namespace, Windows) is blind
// (blind): seeing nothing is not proof. The releases about to be
// removed are then checked with write leases (fcntl F_SETLEASE F_WRLCK
// fails while any other open file description exists, in any namespace:
// executed, mapped or open files), or on Windows for files held open. A
// release that cannot be checked so makes the run fail with ErrBlind,
// unless ModeBestEffort. Leases do not see a working directory, a name in
// an environment, an O_PATH descriptor, nor on overlayfs a file mapped
// and then closed.
//
// A Mode is the policy's setting and the processes' root finder:
//
//	policy.RuntimeRoots, err = runroots.ParseMode("best-effort")
package runroots
