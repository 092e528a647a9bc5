package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/jsonstream"
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
			remove("core/e/1/1", retention.ReportOutcome{Status: retention.StatusGone, Reasons: []retention.Reason{{Code: retention.CodeGone, Text: "no longer installed"}}}),
			keep("core/e/2/2", "newest release of core/e"),
		},
		Summary:  retention.ReportSummary{Releases: 8, Keep: 4, Remove: 4, Removed: 1, KeptAtRun: 1, Failed: 1, Gone: 1, BytesFreed: 2048},
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
			`(?m)^gone +core/e/1/1 +2\.0 KiB +at run time: no longer installed$`,
			`(?m)^core/e +2 +1 +0 +0 +0 B$`, // gone: neither kept nor removed by this run
			`8 releases: 4 kept, 1 removed, 1 kept at revalidation, 1 failed, 1 already gone; 2\.0 KiB freed\.`,
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

// TestWriteJSONMatchesEncoder: writeJSON streams the reports run and list
// print, and writes exactly the bytes one json.Encoder (indent "  ", no
// HTML escaping) writes for them, with and without the optional parts.
func TestWriteJSONMatchesEncoder(t *testing.T) {
	size, free := int64(2048), int64(-1)
	rep := retention.Report{
		DryRun: true, FSRoot: "/x", Target: "x86_64-linux",
		Releases: []retention.ReportRelease{
			{Ident: "core/a/1/1", Action: retention.Remove, Size: &size, Reasons: []retention.Reason{{Code: retention.CodeOld, Text: "a <1.1 & >2 \u2028 ü \x01"}},
				Outcome: &retention.ReportOutcome{Status: retention.StatusFailed, Error: "permission denied"}},
			{Ident: "core/a/2/2", Action: retention.Keep},
			{Ident: "core/a/3/3", Action: retention.Keep, Reasons: []retention.Reason{}},
		},
		Problems: []pkgstore.Problem{{Path: "hab/pkgs/core/x/\xff", Kind: pkgstore.ProblemInstallLeftover, Modified: time.Unix(1e9, 0).UTC()}, {Release: "core/x/1/1", Blocking: true}},
		Warnings: []retention.Warning{}, RootSources: []retention.Found{{Source: "processes", Counts: map[string]int{"inspected": 2}}},
	}
	empty := retention.Report{Releases: []retention.ReportRelease{}, Problems: []pkgstore.Problem{}, Warnings: []retention.Warning{}, RootSources: []retention.Found{}}
	ident := "core/a/1/1"
	tests := []struct {
		name string
		v    any
	}{
		{"run zero", runReport{}},
		{"run empty", runReport{Report: empty}},
		{"run", runReport{Report: rep}},
		{"run with pressure and cache", runReport{Report: rep,
			pressureReport: pressureReport{FreeBefore: &size, FreeAfter: &free, LargestKept: rep.Releases[1:]},
			Cache:          []cacheReport{{File: "core-a-1-1.hart", Ident: &ident, Reasons: []retention.Reason{}}, {File: "<x>.hart"}}}},
		{"list with policy", listJSON(true, rep)},
		{"list without policy", listJSON(false, rep)},
		{"list empty", listJSON(true, empty)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !jsonstream.Streams(tc.v) {
				t.Errorf("%T is encoded whole, not streamed", tc.v)
			}
			var want, got bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.v); err != nil {
				t.Fatal(err)
			}
			if err := writeJSON(&got, tc.v); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("writeJSON differs from json.Encoder:\n got: %s\nwant: %s", got.Bytes(), want.Bytes())
			}
		})
	}
}

// TestListJSON: list --json gives each release its own action and
// reasons with a policy, and null for both without one.
func TestListJSON(t *testing.T) {
	size := int64(7)
	why := func(s string) []retention.Reason { return []retention.Reason{{Code: retention.CodeOld, Text: s}} }
	rep := retention.Report{Releases: []retention.ReportRelease{
		{Ident: "core/a/1/1", Action: retention.Remove, Reasons: why("one"), Size: &size},
		{Ident: "core/a/2/2", Action: retention.Keep, Reasons: why("two")},
		{Ident: "core/b/1/1", Action: retention.Remove, Reasons: why("three")},
	}}
	type release struct {
		Ident   string             `json:"ident"`
		Action  *retention.Action  `json:"action"`
		Reasons []retention.Reason `json:"reasons"`
		Size    *int64             `json:"size"`
	}
	for _, policy := range []bool{true, false} {
		t.Run(fmt.Sprint("policy ", policy), func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeJSON(&buf, listJSON(policy, rep)); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Policy   bool      `json:"policy"`
				Releases []release `json:"releases"`
			}
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Policy != policy || len(got.Releases) != len(rep.Releases) {
				t.Fatalf("policy %v, %d releases; want %v, %d", got.Policy, len(got.Releases), policy, len(rep.Releases))
			}
			for i, r := range rep.Releases {
				g := got.Releases[i]
				action := "null"
				if g.Action != nil {
					action = string(*g.Action)
				}
				if g.Ident != r.Ident || (g.Size == nil) != (r.Size == nil) || (g.Size != nil && *g.Size != *r.Size) {
					t.Errorf("release %d: %s size %v, want %s size %v", i, g.Ident, g.Size, r.Ident, r.Size)
				}
				switch {
				case !policy && (g.Action != nil || g.Reasons != nil):
					t.Errorf("%s: action %s reasons %v without a policy, want null", r.Ident, action, g.Reasons)
				case policy && (g.Action == nil || *g.Action != r.Action || len(g.Reasons) != 1 || g.Reasons[0] != r.Reasons[0]):
					t.Errorf("%s: action %s reasons %v, want %s %v", r.Ident, action, g.Reasons, r.Action, r.Reasons)
				}
			}
		})
	}
}
