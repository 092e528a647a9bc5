// Package watch purges a Habitat package store as the Supervisor's
// `hab sup run --keep-latest-packages N` does, but safely: right after a
// new release of a package is installed, the package's oldest releases
// beyond the policy's count go, with the dependencies nothing kept needs.
//
// # What it watches
//
// Run watches FS_ROOT/hab/pkgs, the Supervisor's specs directory
// (FS_ROOT/hab/sup/default/specs) and its services' directories
// (FS_ROOT/hab/svc/NAME, where it renames each PID file into place) with
// inotify (fsnotify). One watch is
// set per origin, name and version directory, as each appears: Habitat
// renames a release into its version directory, so a watch on the name
// directory alone would not see a new release of an installed version.
// Release directories are not watched. While nothing changes, Run
// sleeps in the kernel: no timer, no polling.
//
// # When it purges
//
// A package is purged Delay (default 30s) after the last change to it,
// so that the many events of one install, or a burst of installs, make
// one purge per package; and only once no install of its closure is in
// progress. Habitat (components/common/src/command/package/install.rs)
// unpacks each release into a `.hab-pkg-install-*` temp directory in its
// version directory and renames it into place, dependencies first, the
// package last; while such a directory (younger than InstallWindow, else a
// killed install's leftover) is in the package's version directories or
// those of the packages its releases' TDEPS name, the purge waits another
// Delay; so it does while the plan waits for an install anywhere
// (retention.Plan.InstallWait: an install directory, a download or a
// freshly fetched archive; retention keeps every release then).
//
// A purge is the equivalent of `hab-gc run --only SPEC-IDENT --free-deps`
// with the policy Run was given: the plan is the store-wide plan
// (keep-latest, KeepLatestFor, pins, min-age, runtime roots, the
// Supervisor's gateway, leases, binlinks, every loaded service...) limited
// to what the purge is about and to the dependencies only its removed
// releases needed, whatever their own package's count
// (retention.Policy.FreeDeps; Policy.NoDeps keeps them); Apply re-checks
// it under the store's exclusive lock, so purges of one store, and the
// daemon's scheduled jobs, run one at a time. Each purge is one INFO
// record (slog; its phases and releases at DEBUG; a purge stopped by
// ctx is no ERROR), written to the store's history (package history, job
// "watch") and counted in the metrics (type "watch"), like any run.
//
// # What a purge reads
//
// Every purge reads the whole store afresh, as a dry run does, and makes
// the store-wide plan with its policy limited to the package
// (retention.PlanStore); Apply reads it again under the lock. inotify only
// says when to purge and which package: what is in the store is always
// what a read of it shows, mounts placed or removed since included.
//
// # Which packages, and what of them
//
// As the Supervisor's own purge (habitat-sh/habitat
// components/sup/src/manager.rs, maybe_uninstall_old_packages over
// uninstall_all_but_latest in
// components/hab/src/command/pkg/uninstall/uninstall_impl.rs): the
// packages of loaded services (their spec files), each purged over what its
// spec's ident names (a spec core/redis purges every version; one pinned to
// core/redis/6.2.5 purges 6.2.5's old releases only, keeping its newest N;
// one pinned to a release has nothing to purge), or over the whole package
// with WholePackage; and the Supervisor's own, chef/hab-sup (counted by
// SelfKeepLatest), only while a process runs its newest installed release
// (read from the processes' executables, runroots), tried again every
// Delay for an hour while it does not. chef/hab-launcher is never purged,
// as the Supervisor never purges it. With All, any package that gets a new
// release, over its whole package.
//
// # When
//
// As the Supervisor, which purges a service's package when it starts the
// service (components/sup/src/manager.rs add_service_rsw_mlw_rhw_msr),
// never when a release is merely installed: at start, Delay after Run
// sets its watches, every loaded service's package and the Supervisor's
// (TriggerStart); when the Supervisor starts a service, which its PID
// file FS_ROOT/hab/svc/NAME/PID shows, new or replaced (TriggerLoad);
// after a new release of the Supervisor's package, or with All of a
// package no spec loads, is installed (TriggerUpdate). A service whose
// spec says desired_state "down" is never purged: the Supervisor never
// starts it.
//
// # On unload
//
// With OnUnload, a spec file that is removed and has not come back after
// UnloadGrace (default 10m: Chef Automate unloads and reloads services,
// and must not lose anything) takes its package's releases with it: none
// is kept by count, every other protection holds (another spec of the
// package, min-age, pins, processes, binlinks...).
//
// # When inotify cannot be used
//
// When the kernel's limits are reached (fs.inotify.max_user_watches,
// max_user_instances) Run logs a warning saying so and falls back to
// listing the store's directories every Delay, purging what it finds new.
// An inotify queue overflow leads to one such rescan.
//
// # Clock
//
// Options.Now is the clock (the plan's now, the history's times, and the
// deadlines); Delay, UnloadGrace, InstallWindow and Settle (each purge's
// pause before its last check, retention.DefaultSettle by default) are
// settable, so tests and embedded purges run in milliseconds against real
// inotify and real installs.
//
// # Files
//
// watcher.go holds Run and its loop; watches.go the inotify watches of
// the store, its events and the rescans that stand in for them;
// specs.go the specs directory; pids.go the PID files; pending.go the purges waiting for their
// time (which package, when, and running them); purge.go one purge;
// progress.go the
// installs in progress a purge waits for; self.go the Supervisor's own
// package; options.go Options, Trigger and Purge.
package watch
