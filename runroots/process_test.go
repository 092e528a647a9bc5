//go:build linux

package runroots_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

func TestMain(m *testing.M) {
	testtool.NoRaceExitSleep()
	proctest.RunHelper()
	runBlindHelper()
	runCmdlineHelper()
	os.Exit(m.Run())
}

const oldApp = "core/app/1.0.0/20200101000000"

func appStore(t *testing.T) *storetest.Builder {
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: oldApp, Files: map[string]string{"share/data.txt": "data\n", "lib/libapp.so": "not really a library\n"}})
	b.Pkg("core/app/2.0.0/20210101000000")
	proctest.CopySleep(t, b.PkgPath(oldApp)+"/bin/app")
	return b
}

// scanFS scans the store under fsRoot, then the processes under proc.
func scanFS(ctx context.Context, proc, fsRoot string) (*runroots.Result, error) {
	inv, err := pkgstore.Scan(ctx, fsRoot, pkgstore.Options{})
	if err != nil {
		return nil, err
	}
	return runroots.Scan(ctx, proc, inv)
}

func usesOf(t *testing.T, fsRoot string, pid int) []runroots.Use {
	t.Helper()
	res, err := scanFS(context.Background(), "", fsRoot)
	if err != nil {
		t.Fatal(err)
	}
	if res.Processes == 0 || res.Inspected == 0 {
		t.Fatalf("scan saw %d processes, inspected %d", res.Processes, res.Inspected)
	}
	var out []runroots.Use
	for _, u := range res.Uses {
		if u.PID == pid {
			out = append(out, u)
		}
	}
	return out
}

// TestScanRealProcesses starts a process per way of using a file of a
// release and finds it in /proc.
func TestScanRealProcesses(t *testing.T) {
	cases := []struct {
		how  proctest.How
		file string
		kind runroots.Kind
		want string
	}{
		{proctest.Exec, "bin/app", runroots.KindExe, "executes bin/app of it"},
		{proctest.Open, "share/data.txt", runroots.KindFD, "has share/data.txt open"},
		{proctest.Map, "lib/libapp.so", runroots.KindMap, "has lib/libapp.so mapped"},
		{proctest.Env, "bin/app", runroots.KindEnv, "has it in its environment (PATH)"},
		{proctest.Cwd, "share/data.txt", runroots.KindCwd, "has its working directory in it (share)"},
	}
	for _, tc := range cases {
		t.Run(string(tc.how), func(t *testing.T) {
			t.Parallel()
			b := appStore(t)
			p := proctest.Start(t, tc.how, b.PkgPath(oldApp)+"/"+tc.file)
			uses := usesOf(t, b.Root, p.PID())
			found := false
			for _, u := range uses {
				if u.Kind == tc.kind && u.Ident.String() == oldApp && strings.HasSuffix(u.String(), tc.want) && strings.HasPrefix(u.String(), fmt.Sprintf("process %d (", p.PID())) {
					found = true
				}
			}
			if !found {
				t.Fatalf("uses of process %d: %+v; want %s %q", p.PID(), uses, tc.kind, tc.want)
			}
			p.Stop()
			if uses := usesOf(t, b.Root, p.PID()); len(uses) > 0 {
				t.Fatalf("uses after the process exited: %+v", uses)
			}
		})
	}
}

// TestScanHiddenRelease: a file opened before hab-gc hid its release shows
// under the hidden name, and still maps to the release.
func TestScanHiddenRelease(t *testing.T) {
	b := appStore(t)
	p := proctest.Start(t, proctest.Open, b.PkgPath(oldApp)+"/share/data.txt")
	hidden := b.PkgPath("core/app/1.0.0/" + pkgstore.DebrisPrefix + "pending-20200101000000-ABCDEFGHIJ")
	if err := os.Rename(b.PkgPath(oldApp), hidden); err != nil {
		t.Fatal(err)
	}
	uses := usesOf(t, b.Root, p.PID())
	if len(uses) == 0 || uses[0].Ident.String() != oldApp || !uses[0].Hidden {
		t.Fatalf("uses of a hidden release: %+v", uses)
	}
}

// TestPlanKeepsRunningReleaseOfService:
// library: spec core/redis, the service runs 6.2.6, 7.0.0 was installed
// since; keep-latest=1 keeps 6.2.6 (in-use) and what it needs.
func TestPlanKeepsRunningReleaseOfService(t *testing.T) {
	const glibc, running, newer = "core/glibc/2.33/20210101000000", "core/redis/6.2.6/20210603120000", "core/redis/7.0.0/20220601120000"
	b := storetest.New(t)
	b.Pkg(glibc).Pkg("core/glibc/2.35/20220401000000").Pkg(running, glibc).Pkg(newer, "core/glibc/2.35/20220401000000").Spec("redis", "core/redis")
	proctest.CopySleep(t, b.PkgPath(running)+"/bin/redis-server")
	p := proctest.Start(t, proctest.Exec, b.PkgPath(running)+"/bin/redis-server")

	s, plan := planKeepLatest1(t, b.Root)
	d, _ := plan.Decision(pkgstore.MustParseIdent(running))
	want := fmt.Sprintf("process %d (redis-server) executes bin/redis-server of it", p.PID())
	if d.Action != retention.Keep || !hasReason(d.Reasons, retention.CodeInUse, want) {
		t.Fatalf("%s: %s %+v; want keep with %q", running, d.Action, d.Reasons, want)
	}
	if d, _ := plan.Decision(pkgstore.MustParseIdent(glibc)); d.Action != retention.Keep || !hasReason(d.Reasons, retention.CodeDependency, want) {
		t.Fatalf("%s, needed by the running release: %s %+v", glibc, d.Action, d.Reasons)
	}
	if len(plan.Found) != 1 || plan.Found[0].Counts["inspected"] == 0 {
		t.Fatalf("plan.Found = %+v", plan.Found)
	}

	// Once it exits, Apply removes it.
	p.Stop()
	_, plan = planKeepLatest1(t, b.Root)
	res, err := plan.Apply(context.Background(), s, retention.ApplyOptions{Settle: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 2 {
		t.Fatalf("removed %d, want 2 (%+v)", res.Removed, res.Outcomes)
	}
}

// TestApplyKeepsReleaseOpenedWhileHidden: a process opens a file of a
// release after the plan; Apply's checks find it (under the hidden name if
// it comes that late) and keep the release.
func TestApplyKeepsReleaseOpenedAfterPlan(t *testing.T) {
	b := appStore(t)
	s, plan := planKeepLatest1(t, b.Root)
	if d, _ := plan.Decision(pkgstore.MustParseIdent(oldApp)); d.Action != retention.Remove {
		t.Fatalf("plan keeps %s: %+v", oldApp, d.Reasons)
	}
	proctest.Start(t, proctest.Open, b.PkgPath(oldApp)+"/share/data.txt")
	res, err := plan.Apply(context.Background(), s, retention.ApplyOptions{Settle: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 0 || len(res.Outcomes) != 1 || res.Outcomes[0].Reasons[0].Code != retention.CodeInUse {
		t.Fatalf("outcomes %+v", res.Outcomes)
	}
	if _, err := os.Stat(b.PkgPath(oldApp) + "/share/data.txt"); err != nil {
		t.Fatal(err)
	}
}

func hasReason(rs []retention.Reason, code retention.Code, says string) bool {
	for _, r := range rs {
		if r.Code == code && strings.Contains(r.Text, says) {
			return true
		}
	}
	return false
}

// planKeepLatest1 plans keep-latest=1 with runtime roots for the store
// under root, and returns the open store (closed when the test ends).
func planKeepLatest1(t *testing.T, root string) (*pkgstore.Store, *retention.Plan) {
	t.Helper()
	s := storetest.Open(t, root)
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	plan, err := retention.PlanStore(context.Background(), s, pol, time.Now(), pkgstore.Options{Target: storetest.DefaultTarget})
	if err != nil {
		t.Fatal(err)
	}
	return s, plan
}

// TestApplyPutsBackHiddenReleaseInUse: an interrupted run left a release
// hidden; a process has a file of it open (under the hidden name). The
// next run puts it back instead of deleting it.
func TestApplyPutsBackHiddenReleaseInUse(t *testing.T) {
	b := appStore(t)
	hidden := b.PkgPath("core/app/1.0.0/" + pkgstore.DebrisPrefix + "pending-20200101000000-ABCDEFGHIJ")
	if err := os.Rename(b.PkgPath(oldApp), hidden); err != nil {
		t.Fatal(err)
	}
	proctest.Start(t, proctest.Open, hidden+"/share/data.txt")
	s, plan := planKeepLatest1(t, b.Root)
	res, err := plan.Apply(context.Background(), s, retention.ApplyOptions{Settle: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(b.PkgPath(oldApp) + "/share/data.txt"); err != nil {
		t.Fatalf("hidden release in use not put back (%+v): %v", res.Leftovers, err)
	}
}
