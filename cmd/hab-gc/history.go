package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/watch"
)

func (a *app) historyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history [IDENT]",
		Short: "Show what hab-gc removed, when, and why (the journal of every real run)",
		Long: `Show the history journal (FS_ROOT/hab/sup/default/hab-gc/history.jsonl and its rotated files):
every release a real run (hab-gc run, or a scheduled prune) removed or failed to remove, with the run that
did it, its policy and the plan's reasons, and one line per run with its totals. With IDENT (core/redis,
core/redis/6.2.5...), only that package's or release's records. A damaged line (a crash while writing) is
skipped with a notice on stderr.`,
		Example: `  hab-gc history core/redis
  hab-gc history --since 7d --json`,
		Args: args(cobra.MaximumNArgs(1)),
	}
	cmd.Flags().String("since", "", "only records from this long ago on (e.g. 12h, 7d)")
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		var f history.Filter
		if len(argv) == 1 {
			id, err := pkgstore.ParseIdent(argv[0])
			if err != nil {
				return usageError{err}
			}
			f.Ident = &id
		}
		if s, _ := cmd.Flags().GetString("since"); s != "" {
			d, err := parseSince(s)
			if err != nil {
				return usageError{err}
			}
			f.Since = time.Now().Add(-d)
		}
		j, err := history.ForFSRoot(c.fsRoot())
		if err != nil {
			return err
		}
		recs, notices, err := j.Read()
		if err != nil {
			return err
		}
		for _, n := range notices {
			fmt.Fprintf(a.textErr, "hab-gc: notice: %s\n", n)
		}
		recs = f.Select(recs)
		if a.wantJSON(cmd) {
			out := struct {
				Records []history.Record `json:"records"`
				Notices []history.Notice `json:"notices"`
			}{append([]history.Record{}, recs...), append([]history.Notice{}, notices...)}
			return writeJSON(a.stdout, out)
		}
		if len(recs) == 0 {
			_, err := fmt.Fprintf(a.text, "No history records in %s%s.\n", j.Dir, map[bool]string{true: " match", false: ""}[len(argv) == 1 || !f.Since.IsZero()])
			return err
		}
		for _, r := range recs {
			printRecord(a, r)
		}
		return nil
	})
	return cmd
}

func parseSince(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid --since %q: must be a duration such as 12h or 7d", s)
	}
	return d, nil
}

// jobText names what made a record.
func jobText(r history.Record) string {
	by := "hab-gc run"
	switch {
	case r.Job == watch.Job && r.Owner == "":
		by = "hab-gc watch (" + r.JobKey + ")"
	case r.Job != history.JobRun:
		by = "scheduled " + r.Job + " " + r.JobKey
		if r.Owner != "" {
			by += " (schedule " + r.Owner + ")"
		}
	}
	return fmt.Sprintf("%s on %s, %s", by, r.FSRoot, r.Policy)
}

func printRecord(a *app, r history.Record) {
	if r.Job == history.JobBinlinks {
		printBinlinkRecord(a, r)
		return
	}
	t := r.Time.UTC().Format(time.RFC3339)
	if r.Kind == history.KindRun {
		counts := fmt.Sprintf("%d removed, %d kept at revalidation, %d failed", r.Removed, r.Kept, r.Failed)
		if r.Releases > 0 { // as the run's own summary counts (a record before they were kept: without)
			counts = fmt.Sprintf("%s: %d kept, %s", plural(r.Releases, "release"), r.Keep, counts)
		}
		if r.Releases == 0 && r.Removed+r.Kept+r.Failed == 0 { // refused before a plan, or an empty store
			fmt.Fprintf(a.text, "%s  run %s: nothing removed, by %s\n", t, r.Outcome, jobText(r))
		} else {
			fmt.Fprintf(a.text, "%s  run %s: %s; %s freed, by %s\n", t, r.Outcome, counts, humanBytes(r.BytesFreed), jobText(r))
		}
		if r.Error != "" {
			fmt.Fprintf(a.text, "    error: %s\n", r.Error)
		}
		if len(r.Policy.Pins) > 0 {
			pins := make([]string, len(r.Policy.Pins))
			for i, p := range r.Policy.Pins {
				pins[i] = strconv.Quote(p.Pin)
				if p.Source != "" {
					pins[i] += " (" + p.Source + ")"
				}
			}
			fmt.Fprintf(a.text, "    pins: %s\n", strings.Join(pins, ", "))
		}
		return
	}
	if r.Kind == history.KindLeftover {
		fmt.Fprintf(a.text, "%s  %s %s/%s, by %s\n    %s\n", t, r.Outcome, pkgstore.StoreDir, r.Path, jobText(r), r.Why)
		return
	}
	fmt.Fprintf(a.text, "%s  %s %s (%s), by %s\n", t, r.Outcome, r.Ident, humanBytes(r.BytesFreed), jobText(r))
	for _, why := range r.Reasons {
		fmt.Fprintf(a.text, "    why: %s\n", why.Text)
	}
	if r.InstalledBy != "" {
		fmt.Fprintf(a.text, "    installed by: %s\n", r.InstalledBy)
	}
	if r.Error != "" {
		fmt.Fprintf(a.text, "    error: %s\n", r.Error)
	}
}
