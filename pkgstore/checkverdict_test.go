package pkgstore_test

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

func TestJudge(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	foreign := pkgstore.Problem{Kind: pkgstore.ProblemForeignTarget}
	young := pkgstore.Problem{Kind: pkgstore.ProblemInstallLeftover, Modified: now.Add(-time.Minute)}
	stale := pkgstore.Problem{Kind: pkgstore.ProblemInstallLeftover, Modified: now.Add(-2 * time.Hour)}
	unknownAge := pkgstore.Problem{Kind: pkgstore.ProblemInstallLeftover}
	missing := pkgstore.Problem{Kind: pkgstore.ProblemDepMissing}
	for _, tc := range []struct {
		name            string
		problems        []pkgstore.Problem
		strict          bool
		errors, notices int
		ok              bool
		firstIsNotice   bool
	}{
		{"none", nil, false, 0, 0, true, false},
		{"none, strict", nil, true, 0, 0, true, false},
		{"notices pass", []pkgstore.Problem{foreign, young}, false, 0, 2, true, true},
		{"notices fail strict", []pkgstore.Problem{foreign, young}, true, 0, 2, false, true},
		{"an old install directory is an error", []pkgstore.Problem{stale}, false, 1, 0, false, false},
		{"one of unknown age too", []pkgstore.Problem{unknownAge}, false, 1, 0, false, false},
		{"an error among notices", []pkgstore.Problem{missing, foreign}, false, 1, 1, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := (&pkgstore.Report{Problems: tc.problems}).Judge(now, time.Hour, tc.strict)
			if v.Errors != tc.errors || v.Notices != tc.notices || v.OK != tc.ok {
				t.Errorf("got %d errors, %d notices, OK %v; want %d, %d, %v", v.Errors, v.Notices, v.OK, tc.errors, tc.notices, tc.ok)
			}
			if v.Problems == nil || len(v.Problems) != len(tc.problems) {
				t.Fatalf("labelled %v, want %d (never nil: check --json writes [])", v.Problems, len(tc.problems))
			}
			if len(v.Problems) > 0 && v.Problems[0].Notice != tc.firstIsNotice {
				t.Errorf("first labelled notice=%v, want %v", v.Problems[0].Notice, tc.firstIsNotice)
			}
		})
	}
}
