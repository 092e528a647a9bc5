package pkgstore_test

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestIsNotice: another target's release is a notice; an install
// directory is one while younger than the in-progress age, an error once
// older or of unknown age; every other problem is an error.
func TestIsNotice(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	hour := time.Hour
	for _, tt := range []struct {
		name       string
		p          pkgstore.Problem
		inProgress time.Duration
		want       bool
	}{
		{"foreign target", pkgstore.Problem{Kind: pkgstore.ProblemForeignTarget}, hour, true},
		{"foreign target, no window", pkgstore.Problem{Kind: pkgstore.ProblemForeignTarget}, 0, true},
		{"young install", pkgstore.Problem{Kind: pkgstore.ProblemInstallLeftover, Modified: now.Add(-10 * time.Minute)}, hour, true},
		{"install just at the age", pkgstore.Problem{Kind: pkgstore.ProblemInstallLeftover, Modified: now.Add(-hour)}, hour, false},
		{"old install", pkgstore.Problem{Kind: pkgstore.ProblemInstallLeftover, Modified: now.Add(-2 * hour)}, hour, false},
		{"install of unknown age", pkgstore.Problem{Kind: pkgstore.ProblemInstallLeftover}, hour, false},
		{"young install, none in progress", pkgstore.Problem{Kind: pkgstore.ProblemInstallLeftover, Modified: now.Add(-time.Minute)}, 0, false},
		{"other problem", pkgstore.Problem{Kind: pkgstore.ProblemKind("missing-dependency"), Modified: now}, hour, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := pkgstore.IsNotice(tt.p, now, tt.inProgress); got != tt.want {
				t.Errorf("IsNotice = %v, want %v", got, tt.want)
			}
		})
	}
}
