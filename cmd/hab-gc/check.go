package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

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
	cmd.Flags().String("min-age", "", "an install directory younger than this is an install in progress: a notice (default 1h; none: no directory is)")
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
			m, err := c.minAge()
			if err != nil {
				return err
			}
			minAge = inProgressAge(m)
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
		// Shared: a run excludes checks, checks do not exclude each other.
		unlock, without, err := store.ReadLock(cmd.Context(), retention.LockWait(timeout))
		if err != nil {
			return err
		}
		defer unlock()
		if without != nil {
			fmt.Fprintf(a.textErr, "hab-gc: notice: checking without the store's lock (%v); a run in progress may show as problems\n", without)
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
		var pol retention.Policy
		if err := c.roots(&pol); err != nil {
			return err
		}
		dirs := retention.InstallDirs(cmd.Context(), rep.Inventory, pol)
		v := rep.Judge(opts.Now, minAge, strict)
		ps, errs, notices, ok := v.Problems, v.Errors, v.Notices, v.OK
		releases := len(rep.Inventory.Releases)
		if a.wantJSON(cmd) {
			type checkJSON struct {
				OK          bool                   `json:"ok"`
				Releases    int                    `json:"releases"`
				Errors      int                    `json:"errors"`
				Notices     int                    `json:"notices"`
				Problems    []pkgstore.Checked     `json:"problems"`
				InstallDirs []retention.InstallDir `json:"install_dirs,omitempty"`
			}
			if err := writeJSON(a.stdout, checkJSON{ok, releases, errs, notices, ps, dirs}); err != nil {
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
			for _, d := range dirs {
				fmt.Fprintf(a.text, "install directory %s\n", d)
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

// inProgressAge is the age below which an install directory is taken for
// an install in progress, for a MinAge setting.
func inProgressAge(minAge time.Duration) time.Duration {
	switch {
	case minAge == retention.NoMinAge:
		return 0
	case minAge > 0:
		return minAge
	}
	return retention.DefaultMinAge
}
