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
// # Installs in progress
//
// A process with an open descriptor on a file of the artifact cache
// (FS_ROOT/hab/cache/artifacts/FILE), or a descriptor or its working
// directory in an install directory (VERSION/.hab-pkg-install-...), is an
// install in progress (Held, Result.Held): Habitat holds a cached archive
// open while it reads, verifies and unpacks it, before anything else shows
// an install whose archives were all cached. Finder reports each in
// retention.Found.Installs (the archive's release and TDEPS read with
// pkgstore.HeldArchive), so that what it needs is kept and removals wait.
// A blind scan's lease probe checks every regular file of the cache too.
//
// # Paths as the process sees them, and the files' identity
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
// A path that matches none of these is matched by identity, so that bind
// mounts, chroots and other mount namespaces are seen: when one of its
// components (four or more deep) is the name of a release directory of the
// store, the directory it names is stat'ed, in the reader's view and then
// through /proc/PID/root, and compared (device and inode: a bind mount
// keeps them) with the inventory's release directories. Failing that, the file itself
// is compared with the file at the same place under the store's
// ORIGIN/NAME/VERSION/RELEASE: through the proc link for exe, cwd and fd,
// by the inode column for maps. A path without a release's name in it
// costs no system call.
//
// # When /proc does not show everything
//
// Root without CAP_SYS_PTRACE (a hardened unit, a container) cannot read
// the fd, exe, cwd and root links of processes holding capabilities it
// lacks (Linux 6.18: maps and environ stay readable with CAP_SYS_ADMIN or
// CAP_PERFMON); a caller that is not root cannot read other users'
// processes; hidepid hides them; a scan in a child PID namespace does not
// list the processes outside it. Such a scan is blind (Result.Blind), and
// Finder then checks every release about to be removed with write leases
// (Found.Probe): fcntl F_SETLEASE F_WRLCK fails with EAGAIN while any other
// open file description of a file exists, in any namespace, which a
// process that executes a file, has it mapped (also with its descriptor
// closed) or holds it open has. Checked on Linux 6.18 (exec, exec through
// ld.so, open for reading or writing, mapped then closed, another user's
// process: all caught). Not caught: a working directory or root in the
// release (leases are for regular files), a name in an environment or
// command line, an O_PATH descriptor; on overlayfs a file mapped and then
// closed (the mapping holds the lower file), so there a blind scan cannot
// vouch for the release. A file a lease cannot be taken on (not the
// owner and no CAP_LEASE, a file system without leases) makes Finder fail
// with ErrBlind, naming how many processes it could not see and why,
// unless BestEffort.
//
// A Mode says it as a user does (ParseMode: true, false or best-effort,
// the CLI's runtime_roots); retention.Policy.RuntimeRoots takes it, and
// reads the processes with a Finder unless it is ModeOff:
//
//	policy.RuntimeRoots, err = runroots.ParseMode("best-effort")
//
// # What cannot be seen
//
// Processes that cannot be read are counted, never guessed: Result.Denied
// (permission: a caller that is not root cannot read other users' fd,
// maps and environ), Result.Vanished (exited while being read) and
// Result.Failed (anything else). Not visible at all: processes on another
// machine sharing the store (NFS), and a program that will open a file by
// name later without holding anything of its release now.
//
// Finder adapts Scan to retention.RootFinder: each release in use becomes
// a root with code in-use ("process 4121 (redis-server) executes
// bin/redis-server of it"), and its dependencies are kept with it.
//
// # Files
//
// runroots.go holds the types and the matcher of store paths; Linux's
// scan is scan_linux.go (the processes, read GOMAXPROCS at once),
// process_linux.go (one process: its links, mappings, environment and
// command line), reader_linux.go (a worker's matches, remembered),
// procfs_linux.go (reading proc files by descriptor) and
// identity_linux.go (releases seen by identity: bind mounts, other mount
// namespaces); scan_windows.go and scan_other.go are the other platforms'.
// blind*.go and lease_*.go are the blind scan and its write leases,
// probe.go and finder.go what Finder makes of a Result, mode.go the Mode, installs.go the
// installs in progress processes show.
package runroots
