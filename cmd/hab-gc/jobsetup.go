package main

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// jobConfig is the configuration a scheduled job runs with on one FS root:
// exactly that of `hab-gc run --fs-root ROOT --keep-latest=K
// [--exclude=E...] [--min-age=M]` (the job's parameters; its excludes
// named as the schedule's, see Job.PinSource) in the daemon's
// environment, with the daemon's --config, --target and --lock-timeout.
// Everything else (HAB_BINLINK_DIR, self_keep_latest, the FS root's
// hab-gc.toml...) is read as `run` reads it.
func (a *app) jobConfig(daemon *cobra.Command, fsRoot string, j schedule.Job) (*config, error) {
	cmd := &cobra.Command{Use: "run"}
	addRootFlags(cmd.Flags())
	addPolicyFlags(cmd.Flags())
	set := func(name, value string) error { return cmd.Flags().Set(name, value) }
	for _, name := range storeFlags() {
		if f := daemon.Flags().Lookup(name); f != nil && f.Changed {
			if err := set(name, f.Value.String()); err != nil {
				return nil, err
			}
		}
	}
	if err := set("fs-root", fsRoot); err != nil {
		return nil, err
	}
	if j.Type == schedule.Prune || j.Type == schedule.Pressure {
		if err := set("keep-latest", strconv.Itoa(j.Params.Count())); err != nil {
			return nil, err
		}
		if j.Params.MinAge != 0 {
			if err := set("min-age", humanize.DurationSetting(j.Params.MinAge, retention.NoMinAge)); err != nil {
				return nil, err
			}
		}
	}
	c, err := loadConfig(cmd, a.lookup)
	if err != nil {
		return nil, err
	}
	if j.Type == schedule.Prune || j.Type == schedule.Pressure {
		// The job's excludes add up with those of the flags, the
		// environment and the config file, as every source's do (see
		// config.pins), each named with its source.
		c.jobPins, c.jobPinSource = j.Params.Exclude, j.PinSource()
	}
	return c, nil
}

// jobSetup is the schedule.Setup of the daemon: each FS root's policy and
// scan options as `run` builds them (pruneSetup).
func (a *app) jobSetup(daemon *cobra.Command) schedule.Setup {
	return func(fsRoot string, j schedule.Job) (retention.Policy, pkgstore.Options, error) {
		c, err := a.jobConfig(daemon, fsRoot, j)
		if err != nil {
			return retention.Policy{}, pkgstore.Options{}, err
		}
		if j.Type == schedule.Check {
			opts, err := c.scanOptions()
			return retention.Policy{}, opts, err
		}
		return c.pruneSetup(true)
	}
}
