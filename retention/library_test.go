package retention_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// A policy that says nothing is refused, by Compute and
// by PlanStore; keeping 0 by count must be said.
func TestEmptyPolicyRefused(t *testing.T) {
	b := base(t)
	inv := scanStore(t, b)
	tests := []struct {
		name    string
		pol     retention.Policy
		refused bool
	}{
		{"zero policy", retention.Policy{}, true},
		{"only set, no count", retention.Policy{Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}}, true},
		{"min age only", retention.Policy{MinAge: time.Hour}, true},
		{"keep 1", retention.Policy{KeepLatest: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := retention.Compute(inv, tt.pol, nil, now, nil)
			if got := err != nil; got != tt.refused {
				t.Fatalf("Compute refused = %v (%v), want %v", got, err, tt.refused)
			}
			s := storetest.Open(t, b.Root)
			_, err = retention.PlanStore(context.Background(), s, tt.pol, now, pkgstore.Options{Target: "x86_64-linux"})
			if got := err != nil; got != tt.refused {
				t.Fatalf("PlanStore refused = %v (%v), want %v", got, err, tt.refused)
			}
		})
	}
}

// A policy reads well in a log line.
func TestPolicyString(t *testing.T) {
	pol := retention.Policy{KeepLatest: 2, MinAge: 2 * time.Hour,
		Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}}
	ex, err := retention.ParseExclude("core/postgresql@>=11 <12")
	if err != nil {
		t.Fatal(err)
	}
	pol.Excludes = append(pol.Excludes, ex)
	got := fmt.Sprint(pol)
	for _, want := range []string{"keep-latest=2", "min-age=2h0m0s", "only=core/redis", `exclude="core/postgresql@>=11 <12"`} {
		if !strings.Contains(got, want) {
			t.Errorf("Policy prints as %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "{") {
		t.Errorf("Policy prints as a struct dump: %q", got)
	}
}

// One clock. A caller whose clock reads 48 hours ahead
// plans and applies with it (Plan.Now); without a minimum age, what the
// plan removes is removed. With one, a release installed
// just now is young by the real clock, and kept, in the plan and at Apply
// (TestPlanAheadOfTheRealClockKeepsYoungReleases).
func TestApplyUsesThePlansClock(t *testing.T) {
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "core/a/1.0/20200101000000"}) // installed now (ctime)
	b.Add(storetest.Release{Ident: "core/a/2.0/20210101000000"})
	ahead := time.Now().Add(48 * time.Hour)
	s, p := openPlan(t, b.Root, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, ahead, pkgstore.Options{Target: "x86_64-linux"})
	if !p.Now.Equal(ahead) || len(p.Removals()) != 1 {
		t.Fatalf("plan at %s removes %d, want the caller's clock %s and 1", p.Now, len(p.Removals()), ahead)
	}
	res, err := p.Apply(context.Background(), s, fast)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 1 {
		t.Fatalf("removed %d, want 1: %+v", res.Removed, res.Outcomes)
	}
}

// A plan applied to another store is refused.
func TestApplyRefusesAnotherStore(t *testing.T) {
	a, other := base(t), base(t)
	p := planAt(t, a.Root, retention.Policy{KeepLatest: 1})
	s := storetest.Open(t, other.Root)
	res, err := p.Apply(context.Background(), s, fast)
	if err == nil {
		t.Fatalf("a plan for %s applied to %s: no error (%+v)", a.Root, other.Root, res)
	}
	if !exists(other.PkgPath(redis1)) {
		t.Fatal("the other store lost a release")
	}
}

// The zero LockTimeout means the default wait
// (DefaultLockTimeout, as the CLI's), not "fail at once".
func TestApplyZeroLockTimeoutWaits(t *testing.T) {
	b := base(t)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	unlock := storetest.HoldLock(t, b.Root)
	time.AfterFunc(300*time.Millisecond, unlock)
	s := storetest.Open(t, b.Root)
	if _, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: -1}); err != nil {
		t.Fatalf("Apply with the zero LockTimeout did not wait for a lock released after 300ms: %v", err)
	}
}

// A release removed only because the Only packages'
// removed releases were its last dependents has its own code, not
// "superseded" ("not among the newest 1 of core/glibc" reads wrong).
func TestOnlyFreedDependencyCode(t *testing.T) {
	b := base(t)
	p := plan(t, b, retention.Policy{KeepLatest: 1, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}})
	d := decision(t, p, glibc1)
	if d.Action != retention.Remove || d.Reasons[0].Code == retention.CodeOld || !strings.Contains(d.Reasons[0].Text, "core/redis") {
		t.Fatalf("glibc1, needed only by removed core/redis releases: %s %v", d.Action, d.Reasons)
	}
	if d := decision(t, p, redis1); d.Action != retention.Remove || d.Reasons[0].Code != retention.CodeOld {
		t.Fatalf("redis1: %s %v", d.Action, d.Reasons)
	}
}

// Per-release failures are errors callers test with
// errors.Is and errors.As: permission (an immutable VERSION directory, so
// the release cannot be renamed away), and changed since the plan.
func TestOutcomeErrors(t *testing.T) {
	b := base(t)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	// redis1 cannot be hidden: its VERSION directory is immutable.
	verDir := filepath.Dir(b.PkgPath(redis1))
	if out, err := exec.Command("chattr", "+i", verDir).CombinedOutput(); err != nil {
		t.Skipf("chattr +i (needs root and a file system that has it): %v %s", err, out)
	}
	defer exec.Command("chattr", "-i", verDir).Run()
	// redis2 is replaced since the plan (another directory, same name).
	gone := testtool.TempDir(t) + "/gone"
	if err := os.Rename(b.PkgPath(redis2), gone); err != nil { // its inode stays in use
		t.Fatal(err)
	}
	oldPkg(b, redis2, glibc2)
	testtool.RemoveAll(gone)
	res := applyPlan(t, p, b.Root, fast)

	o, _ := outcome(res, redis1)
	var re *retention.ReleaseError
	if o.Status != retention.StatusFailed || !errors.Is(o.Err, fs.ErrPermission) || !errors.As(o.Err, &re) || re.Ident.String() != redis1 {
		t.Errorf("immutable %s: %+v (Err %v)", redis1, o, o.Err)
	}
	o, _ = outcome(res, redis2)
	if o.Status != retention.StatusKept || !errors.Is(o.Err, retention.ErrChangedSincePlan) {
		t.Errorf("replaced %s: %+v (Err %v)", redis2, o, o.Err)
	}
	if o, _ := outcome(res, redis3); o.Status != retention.StatusRemoved || o.Err != nil {
		t.Errorf("%s: %+v", redis3, o)
	}
	// Err is the outcome's one error; what the report
	// (and the history) records is its text, without the ident the
	// record names, and only for a failure.
	for _, rr := range p.Report(res).Releases {
		o, ok := outcome(res, rr.Ident)
		if !ok {
			continue
		}
		want := ""
		if o.Status == retention.StatusFailed {
			want = re.Err.Error()
		}
		if rr.Outcome.Error != want || o.ErrorText() != want {
			t.Errorf("%s: report error %q, ErrorText %q, want %q", rr.Ident, rr.Outcome.Error, o.ErrorText(), want)
		}
	}
	if re == nil || strings.HasPrefix(re.Err.Error(), redis1+": hide:") || !strings.HasPrefix(re.Error(), redis1+": hide: ") {
		t.Errorf("ReleaseError %v", re)
	}
}
