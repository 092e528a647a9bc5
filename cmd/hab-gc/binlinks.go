package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/retention"
)

func (a *app) binlinksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "binlinks",
		Short: "Repair dangling binlinks: relink each to the newest installed release with its command, else remove it (--dry-run: plan only)",
		Long: `hab pkg uninstall leaves the binlinks of the release it removes pointing at nothing (Habitat
issue 6426); check reports each one (dangling-binlink). binlinks repairs them: each binlink into the store
that leads nowhere is pointed at the same command in the newest installed release of its package that has
it (found on the release's PATH, as hab pkg binlink finds it, and linked as hab pkg binlink links it:
/hab/pkgs/ORIGIN/NAME/VERSION/RELEASE/bin/COMMAND), else removed; with --remove, removed. Links that do
not point into the store, links that work, links to a directory, and links in a binlink directory that is
a symlink (such as /bin on merged-/usr systems: name the directory it leads to in HAB_BINLINK_DIR) are
left alone. Binlink directories: /bin, /usr/local/bin, /hab/bin and HAB_BINLINK_DIR, under the FS root.

With --dry-run, only print the plan: nothing is changed. Otherwise, under the store's lock, each link is
read again on its directory's descriptor and changed only when it is still the planned dangling link
(replaced atomically, never followed); what changed meanwhile is kept. The repairs are journalled in the
history (hab-gc history). A store with blocking problems (hab-gc check) is refused: which releases are
installed is unknown.

` + exitCodesHelp,
		Example: `  hab-gc binlinks --dry-run
  hab-gc binlinks
  hab-gc binlinks --remove --json`,
		Args: args(cobra.NoArgs),
	}
	cmd.Flags().Bool("dry-run", false, "plan only; change nothing")
	cmd.Flags().Bool("remove", false, "remove every dangling binlink instead of relinking it")
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, _ []string) error {
		ctx := cmd.Context()
		dry, _ := cmd.Flags().GetBool("dry-run")
		remove, _ := cmd.Flags().GetBool("remove")
		timeout, err := c.lockTimeout()
		if err != nil {
			return err
		}
		store, opts, err := c.openStore()
		if err != nil {
			return err
		}
		defer store.Close()
		plan, res, err := binlink.Repair(ctx, store, binlink.RepairOptions{DryRun: dry, RemoveOnly: remove, LockTimeout: timeout, Scan: opts,
			Unlocked: func(without error) {
				fmt.Fprintf(a.textErr, "hab-gc: notice: planning without the store's lock (%v)\n", without)
			}})
		if plan == nil {
			if errors.Is(err, retention.ErrDamaged) && !dry {
				a.logBinlinks(ctx, c, nil, err)
			}
			return err
		}
		if dry {
			return a.binlinksReport(cmd, plan, nil)
		}
		if len(plan.Steps) > 0 || err != nil { // nothing dangling: nothing to journal
			a.logBinlinks(ctx, c, res, err)
		}
		switch {
		case errors.Is(err, binlink.ErrUnsafeDir):
			return refusedError{err}
		case errors.Is(err, context.Canceled) && res != nil:
			if rerr := a.binlinksReport(cmd, plan, res); rerr != nil {
				return rerr
			}
			fmt.Fprintf(a.textErr, "hab-gc: interrupted (%v): stopped between links; the report says what was done\n", context.Cause(ctx))
			return exitCodeError{exitInterrupted}
		case err != nil:
			return err
		}
		if err := a.binlinksReport(cmd, plan, res); err != nil {
			return err
		}
		if res.Partial() {
			return exitCodeError{exitPartial}
		}
		return nil
	})
	return cmd
}

// logBinlinks journals a binlinks run; a failure is a warning.
func (a *app) logBinlinks(ctx context.Context, c *config, res *binlink.Result, err error) {
	fsRoot, aerr := filepath.Abs(c.fsRoot())
	if aerr != nil {
		fsRoot = c.fsRoot()
	}
	run := history.Run{ID: fmt.Sprintf("%s-%s-%d", history.JobBinlinks, time.Now().UTC().Format("20060102T150405Z"), os.Getpid()),
		Job: history.JobBinlinks, FSRoot: fsRoot}
	if herr := history.LogBinlinks(ctx, time.Now(), run, res, err); herr != nil {
		fmt.Fprintf(a.textErr, "hab-gc: warning: the binlinks run's history could not be written: %v\n", herr)
	}
}

type binlinkJSON struct {
	binlink.Step
	Status binlink.StepStatus `json:"status,omitempty"`
	Why    string             `json:"why,omitempty"`
	Error  string             `json:"error,omitempty"`
}

// binlinksReport prints the plan (res nil) or what Apply did.
func (a *app) binlinksReport(cmd *cobra.Command, plan *binlink.Plan, res *binlink.Result) error {
	rows := make([]binlinkJSON, 0, len(plan.Steps))
	if res == nil {
		for _, s := range plan.Steps {
			rows = append(rows, binlinkJSON{Step: s})
		}
	} else {
		for _, o := range res.Outcomes {
			rows = append(rows, binlinkJSON{Step: o.Step, Status: o.Status, Why: o.Why, Error: o.Error})
		}
	}
	counts := map[binlink.Action]int{}
	for _, s := range plan.Steps {
		counts[s.Action]++
	}
	if a.wantJSON(cmd) {
		out := struct {
			DryRun   bool          `json:"dry_run"`
			Binlinks []binlinkJSON `json:"binlinks"`
			Relinked int           `json:"relinked"`
			Removed  int           `json:"removed"`
			Kept     int           `json:"kept"`
			Failed   int           `json:"failed"`
		}{DryRun: res == nil, Binlinks: rows}
		if res == nil {
			out.Relinked, out.Removed, out.Kept = counts[binlink.ActionRelink], counts[binlink.ActionRemove], counts[binlink.ActionLeave]
		} else {
			out.Relinked, out.Removed, out.Kept, out.Failed = res.Relinked, res.Removed, res.Kept, res.Failed
		}
		return writeJSON(a.stdout, out)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(a.text, "No dangling binlinks.")
		return err
	}
	for _, r := range rows {
		verb := map[binlink.Action]string{binlink.ActionRelink: "would relink", binlink.ActionRemove: "would remove", binlink.ActionLeave: "would leave"}[r.Action]
		if res != nil {
			verb = string(r.Status)
		}
		if r.Action == binlink.ActionRelink && (res == nil || r.Status == binlink.StatusRelinked) {
			fmt.Fprintf(a.text, "%s %s -> %s\n", verb, r.Link, r.NewTarget)
		} else {
			fmt.Fprintf(a.text, "%s %s\n", verb, r.Link)
		}
		fmt.Fprintf(a.text, "    points to %s: %s\n", r.Target, r.Dangling)
		why := r.Reason
		if r.Why != "" {
			why = r.Why
		}
		fmt.Fprintf(a.text, "    why: %s\n", why)
		if r.Error != "" {
			fmt.Fprintf(a.text, "    error: %s\n", r.Error)
		}
	}
	if res == nil {
		_, err := fmt.Fprintf(a.text, "\nDry run: %d to relink, %d to remove, %d left alone; nothing changed.\n",
			counts[binlink.ActionRelink], counts[binlink.ActionRemove], counts[binlink.ActionLeave])
		return err
	}
	_, err := fmt.Fprintf(a.text, "\nRelinked %d, removed %d, kept %d, failed %d.\n", res.Relinked, res.Removed, res.Kept, res.Failed)
	return err
}

// printBinlinkRecord prints a binlinks run's history record.
func printBinlinkRecord(a *app, r history.Record) {
	t := r.Time.UTC().Format(time.RFC3339)
	if r.Kind == history.KindRun {
		fmt.Fprintf(a.text, "%s  binlinks %s: relinked %d, removed %d, kept %d, failed %d, by hab-gc binlinks on %s\n", t, r.Outcome, r.Relinked, r.Removed, r.Kept, r.Failed, r.FSRoot)
	} else {
		fmt.Fprintf(a.text, "%s  %s binlink %s (to %s", t, r.Outcome, r.Link, r.Target)
		if r.NewTarget != "" {
			fmt.Fprintf(a.text, ", now to %s", r.NewTarget)
		}
		fmt.Fprintf(a.text, "), by hab-gc binlinks on %s\n", r.FSRoot)
		if r.Why != "" {
			fmt.Fprintf(a.text, "    why: %s\n", r.Why)
		}
	}
	if r.Error != "" {
		fmt.Fprintf(a.text, "    error: %s\n", r.Error)
	}
}
