package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/hab-gc/hab-gc/retention"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // constraints such as <1.1 stay readable
	return enc.Encode(v)
}

// humanBytes formats a byte count; negative means unknown.
func humanBytes(n int64) string {
	if n < 0 {
		return "?"
	}
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func reasonLines(rs []retention.Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Text)
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// printPlan prints a plan (and what a run did) as a table and a summary.
func printPlan(w io.Writer, rep retention.Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	run := !rep.DryRun
	header := "ACTION\tRELEASE\tSIZE\tWHY"
	if run {
		header = "ACTION\tRELEASE\tSIZE\tRESULT\tWHY"
	}
	fmt.Fprintln(tw, header)
	for _, r := range rep.Releases {
		size := "-"
		if r.Size != nil {
			size = humanBytes(*r.Size)
		}
		lines := reasonLines(r.Reasons)
		result := ""
		if r.Outcome != nil {
			result = string(r.Outcome.Status)
			if r.Outcome.Error != "" {
				lines = append(lines, "error: "+r.Outcome.Error)
			}
			for _, x := range r.Outcome.Reasons {
				lines = append(lines, "at run time: "+x.Text)
			}
		}
		if run {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Action, r.Ident, size, result, lines[0])
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Action, r.Ident, size, lines[0])
		}
		for _, l := range lines[1:] {
			if run {
				fmt.Fprintf(tw, "\t\t\t\t%s\n", l)
			} else {
				fmt.Fprintf(tw, "\t\t\t%s\n", l)
			}
		}
	}
	tw.Flush()
	s := rep.Summary
	if run {
		fmt.Fprintf(w, "\n%d releases: %d kept, %d removed, %d kept at revalidation, %d failed; %s freed.\n",
			s.Releases, s.Keep, s.Removed, s.KeptAtRun, s.Failed, humanBytes(s.BytesFreed))
	} else {
		fmt.Fprintf(w, "\n%d releases: %d to keep, %d to remove (%s). Dry run: nothing was changed.\n",
			s.Releases, s.Keep, s.Remove, humanBytes(s.BytesReclaimable))
	}
}

// progress draws a bar on stderr when it is a terminal; otherwise it does
// nothing.
type progress struct {
	bar *progressbar.ProgressBar
}

func newProgress(stderr io.Writer, total int, what string) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000))}
}

func (p *progress) set(n int) {
	if p.bar != nil {
		p.bar.Set(n)
	}
}

func (p *progress) done() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Exit()
	}
}
