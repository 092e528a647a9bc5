package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/internal/jsonstream"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

// planFor opens the store and plans it with the configured policy.
func (a *app) planFor(cmd *cobra.Command, c *config, requireKeep, sizes bool) (*retention.Plan, *pkgstore.Store, error) {
	ctx := cmd.Context()
	pol, opts, err := c.pruneSetup(requireKeep)
	if err != nil {
		return nil, nil, err
	}
	store, err := c.open()
	if err != nil {
		return nil, nil, err
	}
	bar := a.progressFor(cmd)
	opts.OnPhase = bar.onPhase
	opts.Sizes = sizes
	plan, err := retention.PlanStore(ctx, store, pol, time.Now(), opts)
	bar.done()
	if err != nil {
		store.Close()
		return nil, nil, damagedHint(err)
	}
	verbose, _ := cmd.Flags().GetBool("verbose")
	a.planNotes(plan, verbose)
	return plan, store, nil
}

func damagedHint(err error) error {
	if errors.Is(err, retention.ErrDamaged) {
		return fmt.Errorf("%w\nhab-gc check explains each problem. To plan anyway, keeping every damaged release and all it names: --allow-damaged (env HAB_GC_ALLOW_DAMAGED, config key allow_damaged)", err)
	}
	return err
}

// planNotes prints the plan's warnings and its root finders' notices
// (verbose: summaries); those a probe under Apply's lock settles wait for
// probeNotes.
func (a *app) planNotes(plan *retention.Plan, verbose bool) {
	for _, w := range plan.Warnings {
		fmt.Fprintf(a.textErr, "hab-gc: warning: %s\n", w.Text)
	}
	for _, f := range plan.Found {
		switch {
		case verbose:
			fmt.Fprintf(a.stderr, "hab-gc: %s\n", f.Summary)
		case f.Notice != "" && (f.Probe == nil || !plan.ProbesLeftToApply()):
			fmt.Fprintf(a.stderr, "hab-gc: %s\n", f.Notice)
		}
	}
}

func (a *app) probeNotes(plan *retention.Plan, res *retention.Result, verbose bool) {
	if !plan.ProbesLeftToApply() || res == nil {
		return
	}
	for _, f := range res.Found {
		switch {
		case f.Probe == nil:
		case verbose:
			fmt.Fprintf(a.stderr, "hab-gc: under the lock: %s\n", f.Summary)
		case f.Notice != "":
			fmt.Fprintf(a.stderr, "hab-gc: %s\n", f.Notice)
		}
	}
}

// onCommandLine is prune.RefuseUnmatched's test.
func (c *config) onCommandLine(key, source string) bool {
	if key == prune.SettingExclude {
		return source == flagExcludeSource
	}
	return c.flagChanged(c.setting(key))
}

func (a *app) runCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run [IDENT...]",
		Short: "Plan and remove old releases (--dry-run: plan only)",
		Long: `Plan which releases to keep and which to remove, then remove them safely (hab-gc safety: the
safety model). With --dry-run, only print the plan: nothing is changed. Without a policy (--keep-latest, env
HAB_KEEP_LATEST or keep_latest in the config file), run refuses and removes nothing. IDENT arguments (origin/name[/version]) limit removals as --only does: hab-gc run
--keep-latest 2 core/redis is hab-gc run --keep-latest 2 --only core/redis.

` + exitCodesHelp,
		Example: `  hab-gc run --keep-latest=3 --dry-run
  hab-gc run --keep-latest=2 --exclude core/postgresql@'>=11 <12' --json
  HAB_KEEP_LATEST=1 hab-gc run --only core/redis
  hab-gc run --keep-latest 2 core/redis`,
		Args: identArgs("run", "to limit removals to, as --only does"),
	}
	cmd.Flags().Bool("dry-run", false, "plan only; change nothing")
	cmd.Flags().BoolP("verbose", "v", false, "list every kept release too, with its reasons and size (every release is measured: slower on a big store)")
	cmd.Flags().Bool("allow-unmatched", false, "run even when an --exclude, --only or --keep-latest-for given on the command line matches no installed release")
	cmd.Flags().Bool("allow-keep-none", false, "run with keep_latest 0 and no --only: keep no release of any package by count (refused without it)")
	addPolicyFlags(cmd.Flags())
	addPressureFlags(cmd)
	addCacheFlags(cmd)
	addMetricsFileFlag(cmd)
	addPaceFlag(cmd, "off")
	cmd.RunE = asOnly(a.withConfig(func(cmd *cobra.Command, c *config, _ []string) (err error) {
		dry, _ := cmd.Flags().GetBool("dry-run")
		allowKeepNone, _ := cmd.Flags().GetBool("allow-keep-none")
		if err := a.keepNone(c, dry, allowKeepNone); err != nil {
			return err // before anything is written: no history, no metrics
		}
		mf, err := a.openMetricsFile(c, c.fsRoot(), false)
		if err != nil {
			return err
		}
		if mf != nil {
			defer func() {
				if refusedUnwritten(err) {
					return
				}
				if werr := mf.writeErr(); werr != nil && err == nil {
					err = werr // the work stands; the metrics file says nothing of it
				}
			}()
		}
		timeout, err := c.lockTimeout()
		if err != nil {
			return err
		}
		pace, err := c.pace(0) // a run from a terminal goes at full speed
		if err != nil {
			return err
		}
		allowUnmatched, err := c.boolean("allow_unmatched")
		if err != nil {
			return err
		}
		limits, err := c.pressureLimits()
		if err != nil {
			return err
		}
		cacheOpts, cacheErr := c.cacheOptions()
		verbose, _ := cmd.Flags().GetBool("verbose")
		pol, scan, err := c.pruneSetup(true)
		if err != nil {
			return err
		}
		store, err := c.open()
		if err != nil {
			return err
		}
		defer store.Close()
		// Kept releases are measured only to show them (--verbose) or to
		// name the largest under disk pressure.
		scan.Sizes = limits != nil || verbose
		opts := prune.Options{Policy: pol, Scan: scan, Limits: limits, Cache: cacheOpts,
			Free: pressure.Statfs(filepath.Join(c.fsRoot(), pkgstore.StoreDir)), DryRun: dry, LockTimeout: timeout, Pace: pace}
		if mf != nil {
			opts.Metrics = mf.m
		}
		if !allowUnmatched {
			opts.Refuse = prune.RefuseUnmatched(c.onCommandLine)
		}
		if cacheErr != nil {
			// Reported after the plan's notes; nothing is changed.
			opts.Limits, opts.Cache, opts.DryRun, opts.Metrics = nil, nil, true, nil
		}
		bar := a.progressFor(cmd)
		held := func() {}
		planned := false
		opts.Logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		opts.OnPhase = func(e retention.PhaseEvent) {
			if planned {
				a.stop.progress()
			}
			bar.onPhase(e)
		}
		opts.OnPlan = func(o *prune.Outcome) {
			planned = true
			bar.done()
			a.planNotes(o.Plan, verbose)
			if cacheErr == nil && o.Verdict != nil {
				fmt.Fprintf(a.textErr, "hab-gc: disk pressure: %s\n", o.Verdict.Text(*limits))
			}
			if !opts.DryRun {
				// A cancelled Apply has time to put back what it hid.
				held = a.stop.hold(applyStopGrace, func() {})
				bar = a.progressFor(cmd)
			}
		}
		out, err := prune.Run(cmd.Context(), store, opts)
		held()
		bar.done()
		if !planned && out.Plan != nil {
			a.planNotes(out.Plan, verbose)
		}
		if out.HistoryErr != nil && !permissionRefused(err) { // else the refusal's reason is the history's too
			fmt.Fprintf(a.textErr, "hab-gc: warning: the run's history could not be written: %v\n", out.HistoryErr)
		}
		if cacheErr != nil && (err == nil || out.Plan != nil) {
			return cacheErr
		}
		switch {
		case errors.Is(err, pressure.ErrBadLimits):
			return usageError{err}
		case errors.Is(err, prune.ErrUnmatched):
			return refusedError{fmt.Errorf("%w\nCheck the spelling, or pass --allow-unmatched to run anyway", err)}
		case err != nil && out.Plan == nil:
			return needsRoot(damagedHint(err))
		case err != nil && out.Result == nil && !planned:
			return err // the free space unread, the cache's read interrupted
		}
		plan, res := out.Plan, out.Result
		a.probeNotes(plan, res, verbose)
		if err != nil && res == nil {
			return needsRoot(err)
		}
		asJSON := a.wantJSON(cmd)
		var rep retention.Report
		var rels retention.ReportReleases
		if asJSON {
			// Streamed: a large store's peak memory is at its report.
			rep, rels = plan.ReportStream(res)
		} else {
			rep = plan.Report(res)
		}
		report := runReport{Report: rep}
		if out.Verdict != nil {
			report.pressureReport = pressureReportOf(out)
		}
		var cr *cacheRun
		if cacheOpts != nil {
			cr = newCacheRun(out)
		}
		report.Cache = cr.report()
		report.CacheError = cr.readError()
		if asJSON {
			if werr := writeJSON(a.stdout, report, jsonstream.Elements("releases", rels.Len(), func(i int) any { return rels.At(i) })); werr != nil {
				return werr
			}
		} else {
			printPlan(a.text, rep, verbose)
			cr.print(a.text, verbose)
			if out.Verdict != nil {
				printPressure(a.text, *limits, out)
			}
		}
		if res != nil && errors.Is(err, context.Canceled) {
			fmt.Fprintf(a.textErr, "hab-gc: interrupted: %d removed, %d kept (hidden ones put back), %d not attempted, %d failed; nothing more was deleted\n",
				res.Removed, res.Kept, res.NotAttempted, res.Failed)
			return exitCodeError{exitInterrupted}
		}
		if err != nil {
			return err
		}
		if res != nil && res.Partial() {
			fmt.Fprintf(a.textErr, "hab-gc: %d removal(s) failed; the others were done\n", res.Failed)
			return exitCodeError{exitPartial}
		}
		if e := cr.readError(); e != "" {
			fmt.Fprintf(a.textErr, "hab-gc: the artifact cache was not cleaned: %s\n", e)
			return exitCodeError{exitPartial}
		}
		if n := cr.failed(); n > 0 {
			fmt.Fprintf(a.textErr, "hab-gc: %d artifact cache removal(s) failed; the others were done\n", n)
			return exitCodeError{exitPartial}
		}
		if out.Verdict != nil && out.Missing > 0 {
			fmt.Fprintf(a.textErr, "hab-gc: disk pressure: %s still missing to reach max-free %s\n", humanize.Bytes(out.Missing), humanize.Bytes(out.Verdict.MaxFree))
			return exitCodeError{exitNotEnough}
		}
		return nil
	}))
	return cmd
}
