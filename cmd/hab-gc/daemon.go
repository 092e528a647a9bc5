package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

func (a *app) daemonCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon --schedules DIR",
		Short: "Run scheduled check and prune jobs until stopped (--once: what is due now, then exit)",
		Long: `Run the effective jobs of a directory of schedule definitions at their times, each under its store's
lock, recording every run in the state file. Stops on SIGINT or SIGTERM (a running job finishes or stops
safely); reloads the definitions on SIGHUP and whenever the directory changes. With --once, runs what is
due now (a missed run included, once) and exits: for systemd timers or cron.`,
		Args: args(cobra.NoArgs),
	}
	schedFlags(cmd)
	addPaceFlag(cmd, "auto")
	cmd.Flags().Bool("once", false, "run what is due now and exit")
	cmd.Flags().String("job", "", "with --once: only this job (its key, see schedule list)")
	cmd.Flags().String("log-format", "text", "log format: text or json")
	addVerboseLogFlag(cmd)
	addMetricsFileFlag(cmd)
	cmd.Flags().String("metrics-listen", "", "serve Prometheus metrics at http://ADDR/metrics (e.g. :9725, 127.0.0.1:9725)")
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) error {
		defer a.stop.hold(applyStopGrace, func() {})() // a prune may be removing when stopped
		listen, _ := cmd.Flags().GetString("metrics-listen")
		once, _ := cmd.Flags().GetBool("once")
		if listen != "" && once {
			return usageError{fmt.Errorf("--metrics-listen serves the daemon's metrics while it runs: not with --once (use --metrics-file)")}
		}
		var mf *metricsFile
		if path := c.raw("metrics_file"); path != "" || listen != "" {
			var err error
			if mf, err = a.openMetricsFile(c, c.fsRoot(), true); err != nil {
				return err
			}
			if mf == nil {
				mf = &metricsFile{m: metrics.New()}
			}
		}
		s, err := a.newScheduler(cmd, c, false, mf)
		if err != nil {
			return err
		}
		s.OnPhase = func(schedule.Job, retention.PhaseEvent) { a.stop.progress() } // a stopped prune's put-back
		switch f, _ := cmd.Flags().GetString("log-format"); f {
		case "json":
			s.Logger = slog.New(uniqueKeys(slog.NewJSONHandler(a.stderr, logOptions(cmd))))
			a.stop.logTo(s.Logger) // the stop notices too
		case "text":
			s.Logger = slog.New(uniqueKeys(slog.NewTextHandler(a.stderr, logOptions(cmd))))
		default:
			return usageError{fmt.Errorf("invalid --log-format %q: must be text or json", f)}
		}
		s.Only, _ = cmd.Flags().GetString("job")
		if s.Only != "" && !once {
			return usageError{fmt.Errorf("--job needs --once")}
		}
		if once {
			// Nothing to run: no state file, no lock.
			if rejected := a.allRejected(cmd, c); rejected != nil {
				return rejected
			}
		}
		rejected, err := a.reload(s)
		if err != nil {
			return err
		}
		if s.Only != "" && !slices.ContainsFunc(append(s.Jobs(), s.PressureJobs()...), func(j schedule.Job) bool { return j.Key == s.Only }) {
			if rejected != nil {
				return fmt.Errorf("--job %s: no such job (see schedule list); %w", s.Only, rejected)
			}
			return usageError{fmt.Errorf("--job %s: no such job in %s (see schedule list)", s.Only, s.Dir)}
		}
		if once {
			failed := 0
			outs := s.RunOnce(cmd.Context()) // a missed run waits its catch-up delay (--catch-up-spread)
			if cmd.Context().Err() == nil {
				logNothingDue(s, outs)
			}
			if ctx := cmd.Context(); ctx.Err() != nil {
				// A job stopped by the signal stays due: not a failure.
				fmt.Fprintf(a.textErr, "hab-gc: interrupted (%v): %d job(s) ran; what did not run stays due\n", context.Cause(ctx), ran(outs))
				return exitCodeError{exitInterrupted}
			}
			for _, o := range outs {
				if o.Failed() {
					failed++
				}
			}
			if failed > 0 {
				if rejected != nil {
					fmt.Fprintf(a.textErr, "hab-gc: %v\n", rejected)
				}
				return exitCodeError{exitPartial}
			}
			return rejected
		}
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
		ctx, cancel := context.WithCancel(cmd.Context())
		defer cancel()
		reload := make(chan struct{})
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-hup:
					select {
					case reload <- struct{}{}:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
		if listen != "" {
			for _, j := range s.Jobs() {
				mf.m.Watch(j.Store, j.FSRoot)
			}
			if err := serveMetrics(ctx, listen, mf.m, s.Logger); err != nil {
				return err
			}
		}
		s.Logger.Info("hab-gc daemon started", "jobs", len(s.Jobs()), "schedules", s.Dir, "state", statePaths(s))
		wait := a.startWatches(ctx, cmd, s, mf)
		err = s.Serve(ctx, reload)
		cancel()
		wait()
		s.Logger.Info("hab-gc daemon stopped")
		return err
	})
	return cmd
}

func ran(outs []schedule.RunOutcome) int {
	n := 0
	for _, o := range outs {
		if o.Status == schedule.Ran {
			n++
		}
	}
	return n
}

// logNothingDue says, when daemon --once ran no job, when each is next
// due: a timer that fired early is not silent.
func logNothingDue(s *schedule.Scheduler, outs []schedule.RunOutcome) {
	if ran(outs) > 0 {
		return
	}
	for _, o := range outs {
		if o.Failed() {
			return // said by the failure
		}
	}
	sts, err := s.Status()
	if err != nil {
		s.Logger.Warn("nothing was due; when the jobs are next due could not be read", "error", err)
		return
	}
	if len(outs) == 0 {
		s.Logger.Info("nothing was due", "jobs", len(sts))
	}
	for _, o := range outs {
		s.Logger.Info("due but not run", "job", o.Job.Key, "why", o.Status.String())
	}
	for _, st := range sts {
		if s.Only != "" && st.Key != s.Only {
			continue
		}
		next := "unknown"
		if !st.Next.IsZero() {
			next = st.Next.UTC().Format(time.RFC3339)
		}
		s.Logger.Info("next due", "job", st.Key, "type", string(st.Type), "next", next)
	}
}
