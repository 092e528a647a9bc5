package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/internal/jsonstream"
	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// planFor opens the store, scans it (with a progress bar on a terminal)
// and computes the plan for the configured policy.
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
		if errors.Is(err, retention.ErrDamaged) {
			err = fmt.Errorf("%w\nhab-gc check explains each problem. To plan anyway, keeping every damaged release and all it names: --allow-damaged (env HAB_GC_ALLOW_DAMAGED, config key allow_damaged)", err)
		}
		return nil, nil, err
	}
	for _, w := range plan.Warnings {
		fmt.Fprintf(a.textErr, "hab-gc: warning: %s\n", w.Text)
	}
	for _, f := range plan.Found {
		fmt.Fprintf(a.stderr, "hab-gc: %s\n", f.Summary)
	}
	return plan, store, nil
}

// logRun appends a real run's records to the store's history (package
// history); a failure to write them (a journal another process keeps
// locked past history.DefaultLockTimeout or the run's interruption, a
// full disk) is a warning: the run's work stands. It reports whether the
// history was written.
func (a *app) logRun(ctx context.Context, c *config, pol retention.Policy, plan *retention.Plan, res *retention.Result, err error) bool {
	// The FS root as an absolute path: the journal is read from anywhere.
	fsRoot, aerr := filepath.Abs(c.fsRoot())
	if aerr != nil {
		fsRoot = c.fsRoot()
	}
	run := history.Run{ID: fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405Z"), os.Getpid()),
		Job: history.JobRun, FSRoot: fsRoot, Policy: pol}
	if herr := history.LogContext(ctx, time.Now(), run, plan, res, err); herr != nil {
		fmt.Fprintf(a.textErr, "hab-gc: warning: the run's history could not be written: %v\n", herr)
		return false
	}
	return true
}

// refuseUnmatched refuses a real run when an exclude or only given on the
// command line matches no installed release: a typo there would remove
// what the operator meant to keep. From a config file or the environment,
// often shared across machines, such a pin is normal and only warned about.
func refuseUnmatched(c *config, plan *retention.Plan) error {
	var bad []string
	for _, w := range plan.Warnings {
		fromFlag := w.Source == flagExcludeSource
		switch w.Kind {
		case retention.WarnUnmatchedOnly:
			fromFlag = c.flagChanged(c.setting("only"))
		case retention.WarnUnmatchedKeepLatestFor:
			fromFlag = c.flagChanged(c.setting("keep_latest_for"))
		}
		if w.Unmatched() && fromFlag {
			bad = append(bad, "  "+w.Text)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return refusedError{fmt.Errorf("refusing to run: a pin given on the command line matches nothing installed (a typo?):\n%s\nCheck the spelling, or pass --allow-unmatched to run anyway", strings.Join(bad, "\n"))}
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
	cmd.RunE = asOnly(a.withConfig(func(cmd *cobra.Command, c *config, _ []string) (err error) {
		dry, _ := cmd.Flags().GetBool("dry-run")
		allowKeepNone, _ := cmd.Flags().GetBool("allow-keep-none")
		if dry {
			if note := noteKeepNone(c, allowKeepNone); note != "" {
				fmt.Fprintf(a.textErr, "hab-gc: note: %s\n", note)
			}
		} else if err := refuseKeepNone(c, allowKeepNone); err != nil {
			return err // before anything is written: no history, no metrics
		}
		// --metrics-file: the plan, and for a real run what it did and
		// whether it succeeded (a refusal is a failed prune).
		start := time.Now()
		var plan *retention.Plan
		var res *retention.Result
		historyFailed := false
		logRun := func(pol retention.Policy, plan *retention.Plan, res *retention.Result, err error) {
			if !a.logRun(cmd.Context(), c, pol, plan, res, err) {
				historyFailed = true
			}
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
				if historyFailed {
					mf.m.ObserveHistoryFailure(mf.store)
				}
				if plan != nil {
					rep := plan.Report(res)
					mf.m.ObservePlan(mf.store, rep)
					if !dry {
						mf.m.ObserveApply(mf.store, rep.Summary)
					}
				}
				if !dry {
					mf.m.ObserveRun(mf.store, metrics.TypePrune, start, time.Now(), err == nil)
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
		allowUnmatched, err := c.boolean("allow_unmatched")
		if err != nil {
			return err
		}
		limits, err := c.pressureLimits()
		if err != nil {
			return err
		}
		// Under disk pressure every release is measured, to name the
		// largest kept ones when not enough can be freed; with --verbose,
		// to show the kept ones' sizes. Otherwise only the removals are
		// (a real store's kept releases are most of it).
		verbose, _ := cmd.Flags().GetBool("verbose")
		plan, store, err := a.planFor(cmd, c, true, limits != nil || verbose)
		if err != nil {
			if pol, perr := c.policy(true); perr == nil && !dry && !refusedUnwritten(err) {
				logRun(pol, nil, nil, err) // refused: a damaged store, runtime roots unknown...
			}
			return err
		}
		defer store.Close()
		cr, err := planCache(cmd.Context(), c, plan, limits != nil)
		if err != nil {
			return err
		}
		defer cr.close()
		var press *pressureRun
		if limits != nil {
			if press, err = startPressure(plan, c.fsRoot(), *limits, cr); err != nil {
				return err
			}
			fmt.Fprintf(a.textErr, "hab-gc: disk pressure: %s\n", press.verdict.Text(*limits))
		}
		if !dry && !allowUnmatched {
			if err := refuseUnmatched(c, plan); err != nil {
				logRun(plan.Policy, plan, nil, err)
				return err
			}
		}
		if !dry {
			bar := a.progressFor(cmd)
			// A cancelled Apply puts back what it hid and finishes the
			// release it was deleting: given time to, before the
			// watchdog ends the process (which kill -9 safety covers).
			held := a.stop.hold(applyStopGrace, func() {})
			res, err = plan.Apply(cmd.Context(), store, retention.ApplyOptions{
				LockTimeout: timeout,
				OnPhase:     bar.onPhase,
				Logger:      slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
			})
			held()
			bar.done()
			if !res.Applied() {
				res = nil // refused: nothing of it to report
			}
			logRun(plan.Policy, plan, res, err)
			if err != nil && res == nil {
				return needsRoot(err)
			}
			if err == nil {
				if cerr := cr.apply(cmd.Context(), store, timeout, res); cerr != nil {
					return cerr
				}
			}
		}
		asJSON := a.wantJSON(cmd)
		var rep retention.Report
		var rels retention.ReportReleases
		if asJSON {
			// Written as it goes: the releases are not all held at
			// once (a large store's peak memory is at its report).
			rep, rels = plan.ReportStream(res)
		} else {
			rep = plan.Report(res)
		}
		out := runReport{Report: rep}
		if press != nil {
			press.finish(plan, res != nil)
			out.pressureReport = press.report()
		}
		out.Cache = cr.report()
		out.CacheError = cr.readError()
		if asJSON {
			if werr := writeJSON(a.stdout, out, jsonstream.Elements("releases", rels.Len(), func(i int) any { return rels.At(i) })); werr != nil {
				return werr
			}
		} else {
			printPlan(a.text, rep, verbose)
			cr.print(a.text, verbose)
			if press != nil {
				press.print(a.text)
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
		if press != nil && press.missing > 0 {
			fmt.Fprintf(a.textErr, "hab-gc: disk pressure: %s still missing to reach max-free %s\n", humanize.Bytes(press.missing), humanize.Bytes(press.verdict.MaxFree))
			return exitCodeError{exitNotEnough}
		}
		return nil
	}))
	return cmd
}

func (a *app) listCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list [IDENT...]",
		Short: "List installed releases by package, newest first, with size and what the policy would do",
		Long: `List installed releases by package, newest first, with size and, with a policy, what it would do.
With IDENT arguments (origin/name[/version[/release]]: core/redis, core/redis/6.2.6), only the releases
that satisfy one of them are listed; the plan is still the whole store's.`,
		Example: `  hab-gc list core/redis
  hab-gc list --keep-latest=2 core/redis core/openssl`,
		Args: identArgs("list", "to list"),
	}
	addPolicyFlags(cmd.Flags())
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		plan, store, err := a.planFor(cmd, c, false, true)
		if err != nil {
			return err
		}
		defer store.Close()
		hasPolicy := c.isSet("keep_latest")
		rep := plan.Report(nil)
		if len(argv) > 0 {
			var unmatched []pkgstore.Ident
			rep, unmatched = filterReport(rep, parseIdents(argv))
			for _, id := range unmatched {
				fmt.Fprintf(a.textErr, "hab-gc: warning: %s matches no installed release\n", id)
			}
		}
		if a.wantJSON(cmd) {
			return writeJSON(a.stdout, listJSON(hasPolicy, rep))
		}
		tw := tabwriter.NewWriter(a.text, 0, 4, 2, ' ', 0)
		pkg := ""
		rels := slices.Clone(rep.Releases)
		slices.Reverse(rels)                                                 // newest first within each package...
		slices.SortStableFunc(rels, func(x, y retention.ReportRelease) int { // ...packages in order
			return strings.Compare(pkgOf(x.Ident), pkgOf(y.Ident))
		})
		for _, r := range rels {
			if p := pkgOf(r.Ident); p != pkg {
				pkg = p
				fmt.Fprintf(tw, "%s\n", p)
			}
			size := "-"
			if r.Size != nil {
				size = humanBytes(*r.Size)
			}
			if !hasPolicy { // no action to show, nor a reason for one
				fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimPrefix(r.Ident, pkg+"/"), size)
				continue
			}
			why := reasonLines(r.Reasons)
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", strings.TrimPrefix(r.Ident, pkg+"/"), size, r.Action, why[0])
			for _, l := range why[1:] {
				fmt.Fprintf(tw, "\t\t\t%s\n", l)
			}
		}
		tw.Flush()
		fmt.Fprintf(a.text, "\n%s in %s.", plural(rep.Summary.Releases, "release"), plural(countPkgs(rels), "package"))
		if hasPolicy {
			fmt.Fprintf(a.text, " The policy would keep %d and remove %d (%s).\n", rep.Summary.Keep, rep.Summary.Remove, humanBytes(rep.Summary.BytesReclaimable))
		} else {
			fmt.Fprintln(a.text, " No policy set (--keep-latest): actions not shown.")
		}
		return nil
	})
	return cmd
}

// listedRelease is a release in list --json: without a policy there is
// no action and no reason (both null).
type listedRelease struct {
	Ident   string             `json:"ident"`
	Action  *retention.Action  `json:"action"`
	Reasons []retention.Reason `json:"reasons"`
	Size    *int64             `json:"size"`
}

// listJSON is list --json's shape: {"policy", "releases", "warnings"}.
func listJSON(hasPolicy bool, rep retention.Report) any {
	type listed struct {
		Policy   bool                `json:"policy"`
		Releases []listedRelease     `json:"releases"`
		Warnings []retention.Warning `json:"warnings"`
	}
	out := listed{Policy: hasPolicy, Releases: make([]listedRelease, 0, len(rep.Releases)), Warnings: rep.Warnings}
	for i, r := range rep.Releases {
		lr := listedRelease{Ident: r.Ident, Size: r.Size}
		if hasPolicy { // pointing into the report: no allocation per release
			lr.Action, lr.Reasons = &rep.Releases[i].Action, r.Reasons
		}
		out.Releases = append(out.Releases, lr)
	}
	return out
}

func pkgOf(ident string) string {
	parts := strings.SplitN(ident, "/", 3)
	return parts[0] + "/" + parts[1]
}

func countPkgs(rs []retention.ReportRelease) int {
	seen := map[string]bool{}
	for _, r := range rs {
		seen[pkgOf(r.Ident)] = true
	}
	return len(seen)
}

func (a *app) whyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "why IDENT",
		Short: "Explain why a release is kept (the chain to the root that keeps it) or removed",
		Long: `Explain the plan's decision for one release. IDENT may be partial (core/redis, core/redis/6.2.6): every
installed release that satisfies it is explained, newest first (with --json, an array of what a full
IDENT gives). Takes the same policy flags as run.`,
		Args: args(cobra.ExactArgs(1)),
	}
	addPolicyFlags(cmd.Flags())
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		id, err := pkgstore.ParseIdent(argv[0])
		if err != nil {
			return usageError{err}
		}
		if !c.isSet("keep_latest") {
			return refusedError{fmt.Errorf(`why explains what a policy does with a release: set one, as for run:
  hab-gc why --keep-latest=3 %s
  HAB_KEEP_LATEST=3 hab-gc why %s
  keep_latest = 3      (in FS_ROOT/hab/etc/hab-gc.toml, or the file given by --config)`, argv[0], argv[0])}
		}
		plan, store, err := a.planFor(cmd, c, true, false)
		if err != nil {
			return err
		}
		defer store.Close()
		exs, err := explainAll(plan, id)
		if err != nil {
			if errors.Is(err, retention.ErrNotInstalled) {
				return usageError{err}
			}
			return err
		}
		if a.wantJSON(cmd) {
			if id.FullyQualified() { // one release: one object, as always
				return writeJSON(a.stdout, whyJSONOf(exs[0]))
			}
			out := make([]whyJSON, 0, len(exs))
			for _, ex := range exs {
				out = append(out, whyJSONOf(ex))
			}
			return writeJSON(a.stdout, out)
		}
		for i, ex := range exs {
			if i > 0 {
				fmt.Fprintln(a.text)
			}
			printWhy(a.text, ex)
		}
		return nil
	})
	return cmd
}

func (a *app) checkCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify the store's integrity; exit 6 on errors (with --strict, on notices too)",
		Long: `Scan the store under its shared lock (without it, saying so, where it cannot be taken:
a read-only store, a user who may not open it) and report every problem: damaged or missing metadata, malformed
dependency lines, dependencies that are not installed, DEPS lines missing from TDEPS, symlinked or
unreadable directories, install leftovers, specs that cannot be parsed or match nothing, dangling
binlinks. Problems marked "blocking" make run refuse.

Each problem is an error or a notice. Notices are what a healthy, busy machine shows: an install in
progress (an install directory younger than the minimum age, --min-age, default 1h) and releases of
another package target. Everything else is an error. check exits 6 when it finds an error; with
--strict, a notice counts too.`,
		Args: args(cobra.NoArgs),
	}
	cmd.Flags().String("min-age", "", "an install directory younger than this is an install in progress: a notice (default 1h, also 0; none: no directory is)")
	cmd.Flags().Bool("strict", false, "exit 6 on notices too")
	addMetricsFileFlag(cmd)
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) (err error) {
		start := time.Now()
		var problems []pkgstore.Problem
		mf, err := a.openMetricsFile(c, c.fsRoot(), false)
		if err != nil {
			return err
		}
		if mf != nil {
			defer func() {
				if refusedUnwritten(err) {
					return
				}
				if problems != nil {
					mf.m.ObserveProblems(mf.store, problems)
				}
				mf.m.ObserveRun(mf.store, metrics.TypeCheck, start, time.Now(), err == nil)
				if werr := mf.writeErr(); werr != nil && err == nil {
					err = werr // the work stands; the metrics file says nothing of it
				}
			}()
		}
		timeout, err := c.lockTimeout()
		if err != nil {
			return err
		}
		minAge := retention.DefaultMinAge
		if c.isSet("min_age") {
			switch m, err := c.durationSetting("min_age", retention.NoMinAge); {
			case err != nil:
				return err
			case m == retention.NoMinAge:
				minAge = 0
			case m > 0:
				minAge = m
			}
		}
		strict, err := c.boolean("strict")
		if err != nil {
			return err
		}
		store, opts, err := c.openStore()
		if err != nil {
			return err
		}
		defer store.Close()
		// A shared lock: checks do not exclude each other, a run excludes
		// them. On a read-only store, or for a user who may not create or
		// open the lock file, check reads without it and says so.
		unlock, err := store.RLock(cmd.Context(), retention.LockWait(timeout))
		switch {
		case errors.Is(err, pkgstore.ErrLockUnavailable):
			fmt.Fprintf(a.textErr, "hab-gc: notice: checking without the store's lock (%v); a run in progress may show as problems\n", err)
		case err != nil:
			return err
		default:
			defer unlock()
		}
		opts.Now = time.Now()
		bar := a.progressFor(cmd)
		opts.OnPhase = bar.onPhase
		rep, err := store.Verify(cmd.Context(), opts)
		bar.done()
		if err != nil {
			return err
		}
		problems = append([]pkgstore.Problem{}, rep.Problems...)
		type checked struct {
			pkgstore.Problem
			Notice bool `json:"notice"`
		}
		ps := []checked{}
		errs, notices := 0, 0
		for _, p := range rep.Problems {
			n := isNotice(p, opts.Now, minAge)
			ps = append(ps, checked{p, n})
			if n {
				notices++
			} else {
				errs++
			}
		}
		ok := errs == 0 && (!strict || notices == 0)
		releases := len(rep.Inventory.Releases)
		if a.wantJSON(cmd) {
			type checkJSON struct {
				OK       bool      `json:"ok"`
				Releases int       `json:"releases"`
				Errors   int       `json:"errors"`
				Notices  int       `json:"notices"`
				Problems []checked `json:"problems"`
			}
			if err := writeJSON(a.stdout, checkJSON{ok, releases, errs, notices, ps}); err != nil {
				return err
			}
		} else {
			for _, p := range ps {
				label := "error: "
				if p.Notice {
					label = "notice: "
				}
				printProblem(a.text, p.Problem, "", label)
			}
			switch {
			case len(ps) == 0:
				fmt.Fprintf(a.text, "OK: %s, no problems.\n", plural(releases, "release"))
			case ok:
				fmt.Fprintf(a.text, "\nOK: %s, no errors, %s.\n", plural(releases, "release"), plural(notices, "notice"))
			default:
				fmt.Fprintf(a.text, "\n%s, %d blocking, %s, in a store of %s.\n", plural(errs, "error"), len(rep.Inventory.Blocking()), plural(notices, "notice"), plural(releases, "release"))
			}
		}
		if !ok {
			return exitCodeError{exitProblems}
		}
		return nil
	})
	return cmd
}

// isNotice reports whether a problem is a notice, what a healthy, busy
// machine shows, rather than an error: an install directory younger than
// minAge (an install in progress), or a release of another target.
func isNotice(p pkgstore.Problem, now time.Time, minAge time.Duration) bool {
	switch p.Kind {
	case pkgstore.ProblemForeignTarget:
		return true
	case pkgstore.ProblemInstallLeftover:
		return !p.Modified.IsZero() && now.Sub(p.Modified) < minAge
	}
	return false
}

func (a *app) graphCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "graph [IDENT]",
		Short: "Print the dependency graph (DOT or JSON), or one release's closure",
		Args:  args(cobra.MaximumNArgs(1)),
	}
	cmd.Flags().String("format", "dot", "output format: dot or json")
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		format, _ := cmd.Flags().GetString("format")
		if format != "dot" && format != "json" {
			return usageError{fmt.Errorf("invalid --format %q: must be dot or json", format)}
		}
		if a.wantJSON(cmd) {
			format = "json"
		}
		store, opts, err := c.openStore()
		if err != nil {
			return err
		}
		defer store.Close()
		inv, err := store.Scan(cmd.Context(), opts)
		if err != nil {
			return err
		}
		g := depgraph.New(inv)
		var roots []pkgstore.Ref
		if len(argv) == 1 {
			id, err := pkgstore.ParseIdent(argv[0])
			if err != nil {
				return usageError{err}
			}
			r := inv.Latest(id)
			if r == nil {
				return usageError{fmt.Errorf("%s: %w", id, retention.ErrNotInstalled)}
			}
			roots = []pkgstore.Ref{r.Ref}
		}
		var out []byte
		if format == "json" {
			out, err = g.JSON(roots)
		} else {
			out, err = g.DOT(roots)
		}
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", out)
		return err
	})
	return cmd
}

func (a *app) docsCmd(root *cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "docs DIR",
		Short:  "Write man pages (--format man) or markdown (--format markdown) for every command into DIR",
		Args:   args(cobra.ExactArgs(1)),
		Hidden: false,
	}
	cmd.Flags().String("format", "man", "man or markdown")
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		format, _ := cmd.Flags().GetString("format")
		root.DisableAutoGenTag = true
		fillTopics(root)
		if err := os.MkdirAll(argv[0], 0o755); err != nil {
			return err
		}
		switch format {
		case "man":
			manExitCodes(root)
			manTopics(root)
			hdr := &doc.GenManHeader{Title: "HAB-GC", Section: "1"}
			if err := doc.GenManTree(root, hdr, argv[0]); err != nil {
				return err
			}
			if err := writeTopics(root, argv[0], ".1", func(c *cobra.Command, w io.Writer) error {
				h := *hdr
				return doc.GenMan(c, &h, w)
			}); err != nil {
				return err
			}
			return fillManTopics(root, argv[0])
		case "markdown":
			if err := doc.GenMarkdownTree(root, argv[0]); err != nil {
				return err
			}
			return writeTopics(root, argv[0], ".md", doc.GenMarkdown)
		}
		return usageError{fmt.Errorf("invalid --format %q: must be man or markdown", format)}
	}
	return cmd
}
