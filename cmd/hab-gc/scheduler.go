package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

func schedFlags(cmd *cobra.Command) {
	cmd.Flags().String("schedules", "", "directory of schedule definitions (*.toml)")
	cmd.Flags().String("state", "", "state file of every job (default: beside each store, FS_ROOT/hab/sup/default/hab-gc/schedule-state.json of each job's FS root)")
	clockFlags(cmd)
	cmd.Flags().Duration("catch-up-spread", 10*time.Minute, "a run missed while hab-gc was not running waits a stable per-machine delay up to this long (0: at once)")
}

func clockFlags(cmd *cobra.Command) {
	cmd.Flags().String("timezone", "UTC", "time zone cron expressions are read in (e.g. Europe/Berlin, Local)")
	cmd.Flags().String("now", "", "set the clock to this RFC 3339 time (tests and rehearsals)")
}

// zoneAndClock reads --timezone and --now.
func zoneAndClock(cmd *cobra.Command) (*time.Location, func() time.Time, error) {
	tz, _ := cmd.Flags().GetString("timezone")
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("invalid --timezone %q: %v", tz, err)}
	}
	clock := time.Now
	if now, _ := cmd.Flags().GetString("now"); now != "" {
		t0, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return nil, nil, usageError{fmt.Errorf("invalid --now %q: not an RFC 3339 time", now)}
		}
		start := time.Now()
		clock = func() time.Time { return t0.Add(time.Since(start)) }
	}
	return loc, clock, nil
}

// buildTime is the build's commit time (vcs.time): a clock before it is
// wrong (schedule.Scheduler.NotBefore).
func buildTime(bi *debug.BuildInfo, ok bool) time.Time {
	if !ok {
		return time.Time{}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" {
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

// newScheduler builds a scheduler from the flags; readOnly (the schedule
// commands) writes no state.
func (a *app) newScheduler(cmd *cobra.Command, c *config, readOnly bool, m *metricsFile) (*schedule.Scheduler, error) {
	dir, _ := cmd.Flags().GetString("schedules")
	if dir == "" {
		return nil, usageError{fmt.Errorf("--schedules DIR is required")}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, usageError{fmt.Errorf("invalid --schedules %q: not a directory", dir)}
	}
	state, _ := cmd.Flags().GetString("state")
	loc, clock, err := zoneAndClock(cmd)
	if err != nil {
		return nil, err
	}
	timeout, err := c.lockTimeout()
	if err != nil {
		return nil, err
	}
	var pace time.Duration // the schedule commands delete nothing
	if !readOnly {
		if pace, err = c.pace(retention.PaceAuto); err != nil { // background work is gentle
			return nil, err
		}
	}
	spread, _ := cmd.Flags().GetDuration("catch-up-spread")
	if spread < 0 {
		return nil, usageError{fmt.Errorf("invalid --catch-up-spread %v: must be 0 or more", spread)}
	}
	setup := a.jobSetup(cmd)
	var notRun func(schedule.Job, error)
	if m != nil {
		notRun = func(j schedule.Job, _ error) {
			m.m.ObserveNotRun(j.Store, string(j.Type))
			if m.path != "" {
				m.write(a)
			}
		}
	}
	var notBefore time.Time
	if now, _ := cmd.Flags().GetString("now"); now == "" {
		notBefore = buildTime(debug.ReadBuildInfo()) // a rehearsal's --now may be any time
	}
	return &schedule.Scheduler{NotRun: notRun, Dir: dir, StatePath: state, StateBesideStores: state == "", Location: loc, Clock: clock, LockTimeout: timeout, ReadOnly: readOnly, Machine: a.explicitMachineID(), CatchUpSpread: spread, NotBefore: notBefore, Pace: pace,
		Logger: slog.New(uniqueKeys(slog.NewTextHandler(a.stderr, nil))),
		Run: func(ctx context.Context, j schedule.Job, store *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
			start := time.Now()
			res, err := schedule.RunJob(ctx, j, store, now, setup)
			if m != nil {
				observeJob(m.m, j, store.FSRoot(), start, time.Now(), res, err == nil)
				if m.path != "" {
					m.write(a)
				}
			}
			return res, err
		}}, nil
}

// allRejected is the rejection when no definition was accepted, read
// without writing the state file.
func (a *app) allRejected(cmd *cobra.Command, c *config) error {
	probe, err := a.newScheduler(cmd, c, true, nil)
	if err != nil {
		return nil
	}
	probe.Logger = slog.New(slog.DiscardHandler)
	if rejected, _ := a.reload(probe); rejected != nil && len(probe.Jobs())+len(probe.PressureJobs()) == 0 {
		return rejected
	}
	return nil
}

// scheduleCmd is the schedule command group.
func (a *app) scheduleCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "schedule", Short: "Inspect and export scheduled jobs"}
	cmd.AddCommand(a.scheduleListCmd(), a.scheduleNextCmd(), a.scheduleExportCmd())
	return cmd
}

// readSchedulesCmd is a command that reads the schedule definitions.
func readSchedulesCmd(use, short string) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Args: args(cobra.NoArgs)}
	schedFlags(cmd)
	return cmd
}

// readSchedules is the read-only scheduler with its definitions loaded.
func (a *app) readSchedules(cmd *cobra.Command, c *config) (s *schedule.Scheduler, rejected, err error) {
	s, err = a.newScheduler(cmd, c, true, nil)
	if err != nil {
		return nil, nil, err
	}
	s.Logger = slog.New(slog.DiscardHandler) // rejected says it, once
	rejected, err = a.reload(s)
	if err != nil {
		return nil, nil, err
	}
	return s, rejected, nil
}

// reload loads the definitions; rejected names every file refused, for
// the caller to return once its work with the valid ones is done.
func (a *app) reload(s *schedule.Scheduler) (rejected, err error) {
	probs, err := s.Reload()
	if len(probs) > 0 {
		rejected = usageError{fmt.Errorf("%d schedule definition(s) rejected:\n%w", len(probs), errors.Join(probs...))}
	}
	return rejected, err
}

// explicitMachineID is HAB_GC_MACHINE_ID: it replaces every FS root's
// identity for randomized times.
func (a *app) explicitMachineID() string {
	v, _ := a.lookup(schedule.MachineIDEnv)
	return strings.TrimSpace(v)
}
