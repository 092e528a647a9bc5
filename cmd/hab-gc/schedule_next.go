package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

func (a *app) scheduleNextCmd() *cobra.Command {
	next := &cobra.Command{
		Use:   "next SPEC --store PATH --job prune|check",
		Short: "Print the cron expression a spec resolves to for a job on a store, and its next run times",
		Long: `Print the concrete cron expression SPEC resolves to, then its next --count run times (in --timezone).
For a randomized spec (@daily-random...) it depends on the store (an FS root, or the store directory
itself), the job type and, for prune, the policy flags, exactly as in a definition file, and on this
machine's identity (HAB_GC_MACHINE_ID, else the one the state recorded for the store's FS root, else
FS_ROOT/etc/machine-id, else the host name).`,
		Args: args(cobra.ExactArgs(1)),
	}
	next.Flags().String("store", "/", "the store: an FS root (as fs_root in definitions) or its hab/pkgs")
	next.Flags().String("job", "prune", "job type: prune or check")
	next.Flags().Int("keep-latest", 0, "prune: keep_latest")
	next.Flags().StringArray("exclude", nil, "prune: exclude (repeatable)")
	next.Flags().String("min-age", "", "prune: min_age")
	next.Flags().Int("count", 5, "how many next run times to print after the expression")
	clockFlags(next)
	next.Flags().String("state", "", "the daemon's state file, whose recorded machine identity is used (default FS_ROOT/hab/sup/default/hab-gc/schedule-state.json of the store's FS root)")
	next.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		loc, clock, err := zoneAndClock(cmd)
		if err != nil {
			return err
		}
		count, _ := cmd.Flags().GetInt("count")
		if count < 0 {
			return usageError{fmt.Errorf("invalid --count %d: must be 0 or more", count)}
		}
		spec, err := schedule.ParseSpec(argv[0])
		if err != nil {
			return usageError{err}
		}
		storeFlag, _ := cmd.Flags().GetString("store")
		state, _ := cmd.Flags().GetString("state")
		typ, _ := cmd.Flags().GetString("job")
		var p schedule.Params
		switch schedule.JobType(typ) {
		case schedule.Check:
		case schedule.Prune:
			n, _ := cmd.Flags().GetInt("keep-latest")
			p.KeepLatest = retention.KeepCount(n)
			p.Exclude, _ = cmd.Flags().GetStringArray("exclude")
			if m, _ := cmd.Flags().GetString("min-age"); m != "" {
				d, err := retention.ParseDuration(m, retention.NoMinAge)
				if err != nil {
					return usageError{fmt.Errorf("invalid --min-age %q", m)}
				}
				p.MinAge = d
			}
		default:
			return usageError{fmt.Errorf("invalid --job %q: must be prune or check", typ)}
		}
		s := &schedule.Scheduler{StatePath: state, Location: loc, Clock: clock, Machine: a.explicitMachineID()}
		expr, times, err := s.NextRuns(spec, storeFlag, schedule.JobType(typ), p, count)
		if errors.Is(err, pkgstore.ErrNoStore) {
			return usageError{err}
		}
		if expr == "" {
			return err
		}
		fmt.Fprintln(a.text, expr)
		if err != nil {
			return err
		}
		for _, t := range times {
			fmt.Fprintln(a.text, t.In(loc).Format(time.RFC3339))
		}
		return nil
	})
	return next
}
