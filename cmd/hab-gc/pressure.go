package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

func addPressureFlags(cmd *cobra.Command) {
	cmd.Flags().String("min-free", "", "disk pressure: only when the store's file system has less than `SIZE` free (2GiB, 500MB, 10%), remove releases the policy allows removing, most superseded first, until --max-free is free; otherwise remove nothing")
	cmd.Flags().String("max-free", "", "disk pressure: the free space to reach, `SIZE` (default: --min-free)")
}

type pressureReport struct {
	FreeBefore  *int64                    `json:"free_before,omitempty"`
	FreeAfter   *int64                    `json:"free_after,omitempty"`
	MinFree     *int64                    `json:"min_free,omitempty"`
	MaxFree     *int64                    `json:"max_free,omitempty"`
	FreeMissing *int64                    `json:"free_missing,omitempty"`
	LargestKept []retention.ReportRelease `json:"largest_kept,omitempty"`
}

// runReport is run --json.
type runReport struct {
	retention.Report
	pressureReport
	Cache      []cacheReport `json:"cache,omitzero"` // with --cache, possibly empty
	CacheError string        `json:"cache_error,omitempty"`
}

func pressureReportOf(out *prune.Outcome) pressureReport {
	v := out.Verdict
	r := pressureReport{FreeBefore: &v.FreeBefore, FreeAfter: freeAfter(out), MinFree: &v.MinFree, MaxFree: &v.MaxFree, FreeMissing: &out.Missing}
	for _, d := range out.LargestKept {
		size := d.Release.Size
		r.LargestKept = append(r.LargestKept, retention.ReportRelease{Ident: d.Release.Ident.String(), Action: d.Action, Reasons: d.Reasons, Size: &size})
	}
	return r
}

// freeAfter is the free space read after a run that went ahead.
func freeAfter(out *prune.Outcome) *int64 {
	if out.Result == nil || !out.Verdict.Under || out.FreeAfter < 0 {
		return nil
	}
	return &out.FreeAfter
}

func printPressure(w io.Writer, l pressure.Limits, out *prune.Outcome) {
	v := out.Verdict
	fmt.Fprintf(w, "\nDisk pressure: %s.\n", v.Text(l))
	if after := freeAfter(out); after != nil {
		fmt.Fprintf(w, "Free space: %s before, %s after (min-free %s, max-free %s).\n", humanize.Bytes(v.FreeBefore), humanize.Bytes(*after), humanize.Bytes(v.MinFree), humanize.Bytes(v.MaxFree))
	}
	if out.Missing == 0 {
		return
	}
	fmt.Fprintf(w, "Still missing %s to reach max-free %s. The largest releases the policy keeps:\n", humanize.Bytes(out.Missing), humanize.Bytes(v.MaxFree))
	for _, d := range out.LargestKept {
		fmt.Fprintf(w, "  %s  %s  %s\n", d.Release.Ident, humanize.Bytes(d.Release.Size), reasonLines(d.Reasons)[0])
	}
}
