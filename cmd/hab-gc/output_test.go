package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestPrintPlanRun: a real run's short output lists each planned removal
// with its result (and the run-time reason or error), not what the plan
// kept; a per-package summary counts what each package kept, lost and
// failed to lose; the scan's problems and the totals follow. --verbose
// adds every kept release with its reasons.
func TestPrintPlanRun(t *testing.T) {
	size := int64(2048)
	keep := func(id, why string) retention.ReportRelease {
		return retention.ReportRelease{Ident: id, Action: retention.Keep, Reasons: []retention.Reason{{Code: retention.CodeLatest, Text: why}}}
	}
	remove := func(id string, o retention.ReportOutcome) retention.ReportRelease {
		return retention.ReportRelease{Ident: id, Action: retention.Remove, Size: &size,
			Reasons: []retention.Reason{{Code: retention.CodeOld, Text: "not among the newest 1"}}, Outcome: &o}
	}
	rep := retention.Report{
		Releases: []retention.ReportRelease{
			remove("core/a/1/1", retention.ReportOutcome{Status: retention.StatusRemoved, BytesFreed: 2048}),
			remove("core/a/2/2", retention.ReportOutcome{Status: retention.StatusKept, Reasons: []retention.Reason{{Code: retention.CodeNewDependent, Text: "core/b/9/9 now needs it"}}}),
			keep("core/a/3/3", "newest release of core/a"),
			remove("core/c/1/1", retention.ReportOutcome{Status: retention.StatusFailed, Error: "permission denied"}),
			keep("core/c/2/2", "newest release of core/c"),
			keep("core/d/1/1", "newest release of core/d"),
		},
		Summary:  retention.ReportSummary{Releases: 6, Keep: 3, Remove: 3, Removed: 1, KeptAtRun: 1, Failed: 1, BytesFreed: 2048},
		Problems: []pkgstore.Problem{{Path: "hab/pkgs/core/x/1/.hab-pkg-install-1", Kind: pkgstore.ProblemInstallLeftover, Message: "install directory"}},
	}
	tests := []struct {
		name    string
		verbose bool
		want    []string
		wantNot []string
	}{
		{"short", false, []string{
			`(?m)^RESULT +RELEASE +SIZE +DETAIL$`,
			`(?m)^removed +core/a/1/1 +2\.0 KiB$`,
			`(?m)^kept +core/a/2/2 +2\.0 KiB +at run time: core/b/9/9 now needs it$`,
			`(?m)^failed +core/c/1/1 +2\.0 KiB +error: permission denied$`,
			`(?m)^PACKAGE +RELEASES +KEPT +REMOVED +FAILED +FREED$`,
			`(?m)^core/a +3 +2 +1 +0 +2\.0 KiB$`,
			`(?m)^core/c +2 +1 +0 +1 +0 B$`,
			`\(1 package with nothing to remove not shown\)`,
			`(?m)^Problems found by the scan.*\n  install-leftover: hab/pkgs/core/x/1/\.hab-pkg-install-1$`,
			`6 releases: 3 kept, 1 removed, 1 kept at revalidation, 1 failed; 2\.0 KiB freed\.`,
			`--verbose lists the kept releases`,
		}, []string{`core/a/3/3`, `core/d`, `not among the newest`}},
		{"verbose", true, []string{
			`(?m)^keep +core/a/3/3 +- +newest release of core/a$`,
			`(?m)^remove +core/a/1/1 +2\.0 KiB +removed +not among the newest 1$`,
			`(?m)^core/d +1 +1 +0 +0 +0 B$`,
		}, []string{`--verbose lists`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			printPlan(&buf, rep, tt.verbose)
			for _, re := range tt.want {
				if !regexp.MustCompile(re).MatchString(buf.String()) {
					t.Errorf("no match for %s in:\n%s", re, buf.String())
				}
			}
			for _, re := range tt.wantNot {
				if regexp.MustCompile(re).MatchString(buf.String()) {
					t.Errorf("unexpected match for %s in:\n%s", re, buf.String())
				}
			}
		})
	}
}
