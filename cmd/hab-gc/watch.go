package main

import (
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// watchDuration is a duration setting of watch; unset or 0, def.
func (c *config) watchDuration(key string, def time.Duration) (time.Duration, error) {
	if !c.isSet(key) {
		return def, nil
	}
	d, err := retention.ParseDuration(c.raw(key), -1)
	if err != nil || d < 0 {
		return 0, c.bad(key, "must be a duration such as 30s or 10m (0: the default)")
	}
	if d == 0 {
		return def, nil
	}
	return d, nil
}

func (a *app) watchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Purge a package right after a new release of it is installed, until interrupted",
		Long: `Watch FS_ROOT/hab/pkgs and the Supervisor's specs with inotify and purge as the Supervisor's
--keep-latest-packages does: at start (after --delay) every loaded service, and chef/hab-sup when it runs
its newest installed release; then each loaded service's package once a new release of it is installed and
--delay has passed quietly (with --all, any package). A service's purge is the equivalent of run --only
SPEC-IDENT --free-deps (the releases its spec's ident names, core/redis or core/redis/6.2.5, the newest
N kept, and the dependencies only the removed releases needed; --whole-package counts every version, and
--no-deps keeps the dependencies), with the policy flags, environment and config of run. With no count of
its own, it takes the Supervisor's: HAB_KEEP_LATEST_PACKAGES (0: only the running release), then
keep_latest_packages in FS_ROOT/hab/sup/default/config/sup.toml. With --on-unload, a service whose spec is
removed and not back after --unload-grace loses its releases (none kept by count; every other protection
holds). Runs until SIGINT or SIGTERM.`,
		Example: `  hab-gc watch --keep-latest=2
  hab-gc watch --keep-latest=2 --keep-latest-for core/postgresql=5 \
    --on-unload`,
		Args: args(cobra.NoArgs),
	}
	addPolicyFlags(cmd.Flags())
	cmd.Flags().Bool("all", false, "purge any package that gets a new release, not only loaded services' and the Supervisor's")
	cmd.Flags().Bool("whole-package", false, "count a service's releases over its whole package (every version), hab-gc's count, instead of over what its spec names, the Supervisor's")
	cmd.Flags().String("delay", "", "quiet time after a change before the purge (default 30s); also the rescan period when inotify's limits are reached")
	cmd.Flags().Bool("on-unload", false, "remove an unloaded service's releases once its spec has been gone for --unload-grace")
	cmd.Flags().String("unload-grace", "", "how long an unloaded service's spec must stay gone (default 10m)")
	addVerboseLogFlag(cmd)
	addMetricsFileFlag(cmd)
	addPaceFlag(cmd, "auto")
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) error {
		defer a.stop.hold(applyStopGrace, func() {})() // a purge may be removing when stopped
		o := watch.Options{Logger: slog.New(slog.NewTextHandler(a.stderr, logOptions(cmd)))}
		err := c.supervisorCount()
		if err != nil {
			return err
		}
		if o.Policy, o.Scan, err = c.pruneSetup(true); err != nil {
			return err
		}
		o.InstallWindow = o.Scan.InstallWindow
		if o.LockTimeout, err = c.lockTimeout(); err != nil {
			return err
		}
		if o.Pace, err = c.pace(retention.PaceAuto); err != nil { // background work is gentle
			return err
		}
		if err = c.booleans(map[string]*bool{"watch_all": &o.All, "watch_whole_package": &o.WholePackage, "on_unload": &o.OnUnload}); err != nil {
			return err
		}
		if o.Delay, err = c.watchDuration("watch_delay", watch.DefaultDelay); err != nil {
			return err
		}
		if o.UnloadGrace, err = c.watchDuration("unload_grace", watch.DefaultUnloadGrace); err != nil {
			return err
		}
		if o.Store, err = c.open(); err != nil {
			return err
		}
		defer o.Store.Close()
		mf, err := a.openMetricsFile(c, c.fsRoot(), true)
		if err != nil {
			return err
		}
		o.OnPurge = func(watch.Purge) {
			if mf != nil {
				mf.write(a)
			}
			// A purge plans the whole store: free it while watch waits.
			debug.FreeOSMemory()
		}
		if mf != nil {
			o.Metrics = mf.m
		}
		return watch.Run(cmd.Context(), o)
	})
	return cmd
}
