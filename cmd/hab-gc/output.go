package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/internal/jsonstream"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// writeJSON writes every --json output: indented, without HTML escaping,
// its large arrays streamed (jsonstream).
func writeJSON(w io.Writer, v any, opts ...jsonstream.Option) error {
	return jsonstream.Encode(w, v, opts...)
}

// humanBytes formats a byte count; negative means unknown.
func humanBytes(n int64) string {
	if n < 0 {
		return "?"
	}
	return humanize.Bytes(n)
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

// printPlan prints a plan, or what a run did, for people; kept releases
// only when verbose (on a real store they are most of it).
func printPlan(w io.Writer, rep retention.Report, verbose bool) {
	run := !rep.DryRun
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "ACTION\tRELEASE\tSIZE\tWHY"
	switch {
	case verbose && run:
		header = "ACTION\tRELEASE\tSIZE\tRESULT\tWHY"
	case run:
		header = "RESULT\tRELEASE\tSIZE\tDETAIL"
	}
	for _, r := range rep.Releases {
		if verbose || r.Action == retention.Remove {
			if header != "" { // a table only with rows under it
				fmt.Fprintln(tw, header)
				header = ""
			}
			printRelease(tw, r, run, verbose)
		}
	}
	tw.Flush()
	if header == "" {
		fmt.Fprintln(w)
	}
	printPackages(w, rep, verbose)
	if len(rep.Problems) > 0 {
		fmt.Fprintf(w, "\nProblems found by the scan (hab-gc check explains them):\n")
		for _, p := range rep.Problems {
			printProblem(w, p, "  ", "")
		}
	}
	if len(rep.InstallDirs) > 0 && !run {
		fmt.Fprintf(w, "\nInstall directories:\n")
		for _, d := range rep.InstallDirs {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	if len(rep.Leftovers) > 0 {
		fmt.Fprintf(w, "\nLeftover directories:\n")
		for _, l := range rep.Leftovers {
			fmt.Fprintf(w, "  %s: %s: %s\n", l.Path, l.Status, l.Text)
		}
	}
	s := rep.Summary
	if run {
		notAttempted := ""
		if s.NotAttempted > 0 {
			notAttempted = fmt.Sprintf(", %d not attempted (interrupted)", s.NotAttempted)
		}
		if s.Gone > 0 {
			notAttempted += fmt.Sprintf(", %d already gone", s.Gone)
		}
		fmt.Fprintf(w, "\n%s: %d kept, %d removed, %d kept at revalidation, %d failed%s; %s freed.\n",
			plural(s.Releases, "release"), s.Keep, s.Removed, s.KeptAtRun, s.Failed, notAttempted, humanBytes(s.BytesFreed))
		if s.PacedSeconds > 0 {
			fmt.Fprintf(w, "Deleting paused for %s in all, while the disk was slow for its other users (--pace).\n",
				(time.Duration(s.PacedSeconds * float64(time.Second))).Round(time.Millisecond))
		}
	} else {
		fmt.Fprintf(w, "\n%s: %d to keep, %d to remove (%s). Dry run: nothing was changed.\n",
			plural(s.Releases, "release"), s.Keep, s.Remove, humanBytes(s.BytesReclaimable))
	}
	if s.KeptTooYoung > 0 {
		fmt.Fprintf(w, "%d of the kept releases are kept only because they were installed less than the minimum age ago (--min-age, default 1h; a fresh image, a restored backup or a chown makes releases look new): --min-age=none, or a shorter duration, lets them go.\n", s.KeptTooYoung)
	}
	if s.InstallWait != "" {
		fmt.Fprintf(w, "Every release is kept this time: %s. The next run after it ends removes them (--install-window, default 1h, is how long a stalled install holds removals).\n", s.InstallWait)
	}
	if !verbose && s.Keep > 0 {
		fmt.Fprintln(w, "--verbose lists the kept releases too, with their reasons.")
	}
}

// printRelease prints one release's row and continuation lines; a real
// run's short form shows a removal's result, not the plan's reason.
func printRelease(tw io.Writer, r retention.ReportRelease, run, verbose bool) {
	size := "-"
	if r.Size != nil {
		size = humanBytes(*r.Size)
	}
	var lines []string
	if verbose || !run {
		lines = reasonLines(r.Reasons)
	}
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
	if len(lines) == 0 {
		lines = []string{""}
	}
	cols := []string{string(r.Action), r.Ident, size}
	switch {
	case verbose && run:
		cols = append(cols, result)
	case run:
		cols[0] = result
		if result == "" {
			cols[0] = "not run"
		}
	}
	if lines[0] == "" {
		fmt.Fprintf(tw, "%s\n", strings.Join(cols, "\t"))
	} else {
		fmt.Fprintf(tw, "%s\t%s\n", strings.Join(cols, "\t"), lines[0])
	}
	for _, l := range lines[1:] {
		fmt.Fprintf(tw, "%s%s\n", strings.Repeat("\t", len(cols)), l)
	}
}

type pkgCount struct {
	name                                    string
	releases, planned, keep, remove, failed int
	bytes                                   int64
}

// printPackages prints the per-package summary; packages with nothing
// to remove are listed only when verbose.
func printPackages(w io.Writer, rep retention.Report, verbose bool) {
	run := !rep.DryRun
	var pkgs []*pkgCount
	for _, r := range rep.Releases {
		name := pkgOf(r.Ident)
		if len(pkgs) == 0 || pkgs[len(pkgs)-1].name != name {
			pkgs = append(pkgs, &pkgCount{name: name})
		}
		pc := pkgs[len(pkgs)-1]
		pc.releases++
		if r.Action == retention.Remove {
			pc.planned++
		}
		switch {
		case r.Action == retention.Keep:
			pc.keep++
		case !run:
			pc.remove++
			if r.Size != nil {
				pc.bytes += *r.Size
			}
		case r.Outcome != nil && r.Outcome.Status == retention.StatusRemoved:
			pc.remove++
			pc.bytes += r.Outcome.BytesFreed
		case r.Outcome != nil && r.Outcome.Status == retention.StatusFailed:
			pc.failed++
		case r.Outcome != nil && r.Outcome.Status == retention.StatusGone:
			// uninstalled by someone else since the plan: not there, not removed by this run
		default: // kept at revalidation, or never reached: still there
			pc.keep++
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "PACKAGE\tRELEASES\tKEEP\tREMOVE\tSIZE"
	if run {
		header = "PACKAGE\tRELEASES\tKEPT\tREMOVED\tFAILED\tFREED"
	}
	quiet := 0
	for _, pc := range pkgs {
		if !verbose && pc.planned == 0 {
			quiet++
			continue
		}
		if header != "" { // a table only with rows under it
			fmt.Fprintln(tw, header)
			header = ""
		}
		if run {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", pc.name, pc.releases, pc.keep, pc.remove, pc.failed, humanBytes(pc.bytes))
		} else {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", pc.name, pc.releases, pc.keep, pc.remove, humanBytes(pc.bytes))
		}
	}
	tw.Flush()
	switch quiet {
	case 0:
	case 1:
		fmt.Fprintln(w, "(1 package with nothing to remove not shown)")
	default:
		fmt.Fprintf(w, "(%d packages with nothing to remove not shown)\n", quiet)
	}
}

func printProblem(w io.Writer, p pkgstore.Problem, indent, label string) {
	mark := ""
	if p.Blocking {
		mark = " [blocking]"
	}
	fmt.Fprintf(w, "%s%s%s: %s%s\n%s  %s\n", indent, label, p.Kind, p.Path, mark, indent, p.Message)
}

// progress is one line on a terminal's stderr ("scanning 12/340"),
// redrawn at most every 100ms and at each new phase.
type progress struct {
	w     io.Writer
	on    bool
	phase string
	last  time.Time
	drawn bool
}

func newProgress(stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	return &progress{w: stderr, on: ok && term.IsTerminal(int(f.Fd()))}
}

// progressFor is a long command's progress; never with --json, whose
// readers want stderr's lines alone.
func (a *app) progressFor(cmd *cobra.Command) *progress {
	if a.wantJSON(cmd) {
		return &progress{w: a.stderr}
	}
	return newProgress(a.stderr)
}

func (p *progress) show(phase, text string, final bool) {
	if !p.on {
		return
	}
	now := time.Now()
	if phase == p.phase && !final && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.phase, p.last, p.drawn = phase, now, true
	fmt.Fprintf(p.w, "\r%s\x1b[K", text)
}

func (p *progress) onPhase(e retention.PhaseEvent) {
	text := string(e.Phase) + "..."
	if e.Total > 0 {
		text = fmt.Sprintf("%s %d/%d", e.Phase, e.Done, e.Total)
	}
	p.show(string(e.Phase), text, e.Done == 0 || e.Done == e.Total) // a start, a total learnt, an end: at once
}

func (p *progress) done() {
	if p.on && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn, p.phase = false, ""
	}
}

// plural is "1 release", "2 releases".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
