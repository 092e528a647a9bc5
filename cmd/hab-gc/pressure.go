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

// pressureRun is a run under disk pressure, as shown.
type pressureRun struct {
	limits  pressure.Limits
	verdict pressure.Verdict
	after   *int64
	missing int64
	largest []retention.Decision
}

func newPressureRun(l pressure.Limits, out *prune.Outcome) *pressureRun {
	p := &pressureRun{limits: l, verdict: *out.Verdict, missing: out.Missing, largest: out.LargestKept}
	if out.Result != nil && p.verdict.Under && out.FreeAfter >= 0 {
		after := out.FreeAfter
		p.after = &after
	}
	return p
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

func (p *pressureRun) report() pressureReport {
	v := p.verdict
	r := pressureReport{FreeBefore: &v.FreeBefore, FreeAfter: p.after, MinFree: &v.MinFree, MaxFree: &v.MaxFree, FreeMissing: &p.missing}
	for _, d := range p.largest {
		size := d.Release.Size
		r.LargestKept = append(r.LargestKept, retention.ReportRelease{Ident: d.Release.Ident.String(), Action: d.Action, Reasons: d.Reasons, Size: &size})
	}
	return r
}

func (p *pressureRun) print(w io.Writer) {
	fmt.Fprintf(w, "\nDisk pressure: %s.\n", p.verdict.Text(p.limits))
	if p.after != nil {
		fmt.Fprintf(w, "Free space: %s before, %s after (min-free %s, max-free %s).\n", humanize.Bytes(p.verdict.FreeBefore), humanize.Bytes(*p.after), humanize.Bytes(p.verdict.MinFree), humanize.Bytes(p.verdict.MaxFree))
	}
	if p.missing == 0 {
		return
	}
	fmt.Fprintf(w, "Still missing %s to reach max-free %s. The largest releases the policy keeps:\n", humanize.Bytes(p.missing), humanize.Bytes(p.verdict.MaxFree))
	for _, d := range p.largest {
		fmt.Fprintf(w, "  %s  %s  %s\n", d.Release.Ident, humanize.Bytes(d.Release.Size), reasonLines(d.Reasons)[0])
	}
}
