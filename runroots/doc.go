// Package runroots finds the releases of a Habitat package store that
// running processes use: runtime roots, as Nix's garbage collector finds
// them (findRuntimeRoots).
//
// A release that no DEPS, spec or binlink names may still be in use: the
// Supervisor started redis 6.2.6 and the operator installed 7.0.0 since,
// a shell runs a tool from an old release, a daemon has a library of one
// mapped. Removing it pulls files from under a running program. The store's
// files cannot tell; the kernel can. For every process listed in /proc
// (the proc root is a parameter), Scan reads:
//
//   - the links exe, cwd and root, and every fd/* (open files);
//   - the path column of maps (file-backed memory mappings: executables
//     and shared libraries, whether or not a descriptor is still open); a
//     " (deleted)" suffix, which the kernel adds for unlinked files, is
//     ignored;
//   - environ and cmdline, NUL-separated strings scanned for store paths
//     anywhere in them (PATH=/hab/pkgs/core/redis/6.2.6/R/bin:..., a
//     --config=/hab/pkgs/... argument).
//
// Every path that lies in a release directory (ORIGIN/NAME/VERSION/RELEASE
// under the store) is a Use of that release. A path in a directory that
// hab-gc hid a release under while removing it (pkgstore.DebrisPrefix,
// "...-pending-RELEASE-..."), which is where an open file of a release
// shows once it is hidden, maps back to that release, so that the final
// check before deleting (retention.Apply) can put it back.
//
// # Paths as the process sees them
//
// The kernel renders link and maps paths from the reader's root, so they
// are matched as they are. Environment and command-line strings are in the
// process's own view: when its root directory (the root link) is not "/",
// they are joined under that directory before matching, and a process
// whose root is the FS root names the store /hab/pkgs. Links are also tried
// joined under the process's root, for a process in another mount
// namespace. The store is matched both as given (FS_ROOT/hab/pkgs) and with
// symlinks resolved.
//
// # What cannot be seen
//
// Processes that cannot be read are counted, never guessed: Result.Denied
// (permission: a caller that is not root cannot read other users' fd,
// maps and environ), Result.Vanished (exited while being read) and
// Result.Failed (anything else). Not visible at all: processes in another
// PID namespace that this proc root does not list, processes on another
// machine sharing the store (NFS), and a program that will open a file by
// name later without holding anything of its release now.
//
// Finder adapts Scan to retention.RootFinder: each release in use becomes
// a root with code in-use ("process 4121 (redis-server) executes
// bin/redis-server of it"), and its dependencies are kept with it.
package runroots
