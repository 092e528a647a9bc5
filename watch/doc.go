// Package watch purges a Habitat package store as the Supervisor's
// `hab sup run --keep-latest-packages N` does, but safely.
//
// Run watches FS_ROOT/hab/pkgs (each origin, name and version directory:
// Habitat renames a release into its version directory), the
// Supervisor's specs directory and its services' PID files with inotify;
// idle, it sleeps in the kernel. Like the Supervisor
// (components/sup/src/manager.rs, maybe_uninstall_old_packages), it
// purges a loaded service's package when the service starts (at Run's
// start, or when its PID file appears: TriggerStart, TriggerLoad), the
// Supervisor's own (chef/hab-sup) only while it runs its newest release,
// never chef/hab-launcher nor a service whose spec says "down"; with All,
// any package that gets a new release (TriggerUpdate); with OnUnload, a
// package whose spec stayed removed for UnloadGrace (TriggerUnload).
//
// A purge runs Delay after the package's last change, once no install of
// its closure is in progress (a young `.hab-pkg-install-*` directory,
// components/common/src/command/package/install.rs). It is
// `hab-gc run --only SPEC-IDENT --free-deps` with Run's policy: a fresh
// read of the whole store and the store-wide plan limited to the package,
// applied under the store's lock, written to the history (job "watch")
// and the metrics. inotify only says when and which package. When the
// kernel's inotify limits are reached, Run lists the store every Delay
// instead.
package watch
