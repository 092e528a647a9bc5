package main

import (
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// watchDurations are watch's duration settings and their defaults.
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
		Long: `Watch FS_ROOT/hab/pkgs and the Supervisor's specs with inotify and, once a new release of a loaded
service's package (or of chef/hab-sup, chef/hab-launcher; with --all, of any package) is installed and
--delay has passed quietly, run the equivalent of run --only ORIGIN/NAME with the policy flags, environment
and config of run. With --on-unload, a service whose spec is removed and not back after --unload-grace loses
its releases (none kept by count; every other protection holds). Runs until SIGINT or SIGTERM.`,
		Example: `  hab-gc watch --keep-latest=2
  hab-gc watch --keep-latest=2 --keep-latest-for core/postgresql=5 \
    --on-unload`,
		Args: args(cobra.NoArgs),
	}
	addPolicyFlags(cmd.Flags())
	cmd.Flags().Bool("all", false, "purge any package that gets a new release, not only loaded services' and the Supervisor's")
	cmd.Flags().String("delay", "", "quiet time after a change before the purge (default 30s); also the rescan period when inotify's limits are reached")
	cmd.Flags().Bool("on-unload", false, "remove an unloaded service's releases once its spec has been gone for --unload-grace")
	cmd.Flags().String("unload-grace", "", "how long an unloaded service's spec must stay gone (default 10m)")
	addMetricsFileFlag(cmd)
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) error {
		o := watch.Options{Logger: slog.New(slog.NewTextHandler(a.stderr, nil))}
		var err error
		if o.Policy, o.Scan, err = c.pruneSetup(true); err != nil {
			return err
		}
		o.InstallWindow = o.Scan.InstallWindow
		if o.LockTimeout, err = c.lockTimeout(); err != nil {
			return err
		}
		if o.All, err = c.boolean("watch_all"); err != nil {
			return err
		}
		if o.OnUnload, err = c.boolean("on_unload"); err != nil {
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
		if mf != nil {
			o.Metrics = mf.m
			o.OnPurge = func(watch.Purge) {
				mf.write(a)
			}
		}
		return watch.Run(cmd.Context(), o)
	})
	return cmd
}
