package retention_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/supervisor"
)

// The chain Apply hides whole: app 1.0 needs mid 1.0 (DEPS), which needs
// lib 1.0; the newer app, mid and lib need each other likewise.
const (
	chainApp = "core/app/1.0/20200101000000"
	chainMid = "core/mid/1.0/20200101000000"
	chainLib = "core/lib/1.0/20200101000000"
)

// chainStore builds the chain; a policy of keep_latest 1 removes the
// three old releases, and nothing else.
func chainStore(t *testing.T) *storetest.Builder {
	t.Helper()
	b := storetest.New(t)
	oldPkg(b, chainLib)
	oldPkg(b, "core/lib/2.0/20210101000000")
	oldPkg(b, chainMid, chainLib)
	oldPkg(b, "core/mid/2.0/20210101000000", "core/lib/2.0/20210101000000")
	// The real sleep, for a process started from the release's own path.
	sleep, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Skipf("no /bin/sleep to run from the store: %v", err)
	}
	b.Add(storetest.Release{Ident: chainApp, Deps: []string{chainMid}, ModTime: old, Files: map[string]string{"bin/sleep": string(sleep)}})
	b.Chmod(pkgstore.StoreDir+"/"+chainApp+"/bin/sleep", 0o755)
	oldPkg(b, "core/app/2.0/20210101000000", "core/mid/2.0/20210101000000")
	return b
}

// wholeStore fails the test when pkgstore's verification (hab-gc check)
// finds a release whose dependency is not installed, or when one of want
// is not installed whole.
func wholeStore(t *testing.T, root string, want ...string) {
	t.Helper()
	st, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := st.Verify(context.Background(), pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		if p.Kind == pkgstore.ProblemDepMissing {
			t.Errorf("check: %s", p)
		}
	}
	for _, id := range want {
		if !exists(filepath.Join(root, pkgstore.StoreDir, id, "TARGET")) {
			t.Errorf("%s is not installed", id)
		}
	}
}

// A release put back at the final check (after the
// settle) comes back with every release it needs that the same run hid,
// transitively; the outcomes say why each was kept. Each trigger arrives
// once the releases are hidden: a spec written during the settle, a lease
// taken then, the Supervisor's gateway starting to report the service,
// and a process started from the release's own path just before it was
// hidden (it runs on, under the hidden name).
func TestPutBackBringsItsDependencies(t *testing.T) {
	cases := []struct {
		name string
		code retention.Code
		// setup returns the policy's RootFinders and what to do at the
		// phase given.
		setup func(t *testing.T, b *storetest.Builder) ([]retention.RootFinder, retention.Phase, func())
	}{
		{"spec written during the settle", retention.CodeNewDependent, func(t *testing.T, b *storetest.Builder) ([]retention.RootFinder, retention.Phase, func()) {
			return nil, retention.PhaseSettle, func() { b.Spec("app", chainApp) }
		}},
		{"lease taken during the settle", retention.CodeLeased, func(t *testing.T, b *storetest.Builder) ([]retention.RootFinder, retention.Phase, func()) {
			return nil, retention.PhaseSettle, func() { holdLease(t, b.Root, chainApp+"\n") }
		}},
		{"gateway starts reporting the service", retention.CodeService, func(t *testing.T, b *storetest.Builder) ([]retention.RootFinder, retention.Phase, func()) {
			var loaded atomic.Bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !loaded.Load() {
					w.Write([]byte(`[]`))
					return
				}
				w.Write([]byte(`[{"service_group":"app.default","pkg":{"ident":"` + chainApp + `"}}]`))
			}))
			t.Cleanup(srv.Close)
			f := supervisor.Finder{Client: supervisor.Client{URL: srv.URL + "/services"}}
			return []retention.RootFinder{f}, retention.PhaseSettle, func() { loaded.Store(true) }
		}},
		{"process started from the release's path before it was hidden", retention.CodeInUse, func(t *testing.T, b *storetest.Builder) ([]retention.RootFinder, retention.Phase, func()) {
			if runtime.GOOS != "linux" {
				t.Skip("Linux only: runs the host's /bin/sleep from the release and reads /proc/PID/exe (Windows' process images: runroots' TestScanWindowsSeesProcessImage, retention's TestApplyKeepsReleaseHeldOpen)")
			}
			return nil, retention.PhaseHide, func() {
				cmd := exec.Command(filepath.Join(b.PkgPath(chainApp), "bin", "sleep"), "600")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
				// Until its exe is the release's file (exec done).
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
					if l, _ := os.Readlink("/proc/" + itoa(cmd.Process.Pid) + "/exe"); filepath.Dir(filepath.Dir(l)) == b.PkgPath(chainApp) {
						return
					}
					if time.Now().After(deadline) {
						t.Fatal("the process did not start from the release")
					}
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := chainStore(t)
			finders, at, trigger := c.setup(t, b)
			pol := retention.Policy{KeepLatest: 1, RootFinders: finders}
			p := planAt(t, b.Root, pol)
			if n := len(p.Removals()); n != 3 {
				t.Fatalf("the plan removes %d releases, want the 3 of the chain", n)
			}
			fired := false
			opts := retention.ApplyOptions{Settle: time.Nanosecond, OnPhase: func(e retention.PhaseEvent) {
				if e.Phase == at && e.Done == 0 && !fired {
					fired = true
					trigger()
				}
			}}
			res := applyPlan(t, p, b.Root, opts)
			if !fired {
				t.Fatalf("phase %s never came", at)
			}
			if res.Removed != 0 || res.Failed != 0 || res.Kept != 3 {
				t.Errorf("removed %d, failed %d, kept %d; want all 3 kept: %+v", res.Removed, res.Failed, res.Kept, res.Outcomes)
			}
			if o, _ := outcome(res, chainApp); o.Status != retention.StatusKept || len(o.Reasons) == 0 || o.Reasons[0].Code != c.code {
				t.Errorf("%s: %+v, want kept (%s)", chainApp, o, c.code)
			}
			for _, id := range []string{chainMid, chainLib} {
				if o, _ := outcome(res, id); o.Status != retention.StatusKept || len(o.Reasons) == 0 || o.Reasons[0].Code != retention.CodeDependency {
					t.Errorf("%s: %+v, want kept (%s)", id, o, retention.CodeDependency)
				}
			}
			wholeStore(t, b.Root, chainApp, chainMid, chainLib)
		})
	}
}

// Leftovers of a killed run that had hidden the whole
// chain are put back together when something needs its top (a spec, a
// lease): the releases it needs come back with it, and the run's plan,
// made under the lock, keeps them.
func TestLeftoversPutBackTogether(t *testing.T) {
	cases := []struct {
		name string
		need func(t *testing.T, b *storetest.Builder)
	}{
		{"spec", func(t *testing.T, b *storetest.Builder) { b.Spec("app", chainApp) }},
		{"lease", func(t *testing.T, b *storetest.Builder) { holdLease(t, b.Root, chainApp+"\n") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := chainStore(t)
			// What a run killed after hiding the chain leaves.
			for i, id := range []string{chainApp, chainMid, chainLib} {
				orig := b.PkgPath(id)
				hidden := filepath.Join(filepath.Dir(orig), pkgstore.DebrisPrefix+"pending-"+filepath.Base(orig)+"-ABCDEFGHI"+string(rune('A'+i)))
				if err := os.Rename(orig, hidden); err != nil {
					t.Fatal(err)
				}
			}
			c.need(t, b)
			pol := retention.Policy{KeepLatest: 1, AllowDamaged: true}
			res := applyPlan(t, planAt(t, b.Root, pol), b.Root, fast)
			kept := 0
			for _, l := range res.Leftovers {
				if l.Status == retention.StatusKept {
					kept++
				}
			}
			if kept != 3 || res.Failed != 0 {
				t.Errorf("leftovers %+v, failed %d; want the 3 of the chain put back", res.Leftovers, res.Failed)
			}
			if res.Removed != 0 {
				t.Errorf("removed %d: %+v", res.Removed, res.Outcomes)
			}
			wholeStore(t, b.Root, chainApp, chainMid, chainLib)
		})
	}
}

// A release put back whole because a mount point
// appeared inside it after it was hidden brings back what it needs too.
func TestMountPutBackBringsItsDependencies(t *testing.T) {
	b := chainStore(t)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	mounted := false
	opts := fast
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, hidden string) {
		if stage == "hidden" && id.String() == chainApp {
			mounted = true
			mountAt(t, b.Path("hab/pkgs/"+hidden+"/config"), func() error {
				return mountTmpfs(b.Path("hab/pkgs/" + hidden + "/config"))
			})
			t.Cleanup(func() { unmount(b.PkgPath(chainApp) + "/config") })
		}
	})
	res := applyPlan(t, p, b.Root, opts)
	if !mounted {
		t.Fatal("the hook never ran")
	}
	if o, _ := outcome(res, chainApp); o.Status != retention.StatusKept || !hasReason(o.Reasons, codeMount, chainApp+"/config") {
		t.Errorf("%s: %+v, want kept (%s)", chainApp, o, codeMount)
	}
	for _, id := range []string{chainMid, chainLib} {
		if o, _ := outcome(res, id); o.Status != retention.StatusKept || !hasReason(o.Reasons, retention.CodeDependency, "") {
			t.Errorf("%s: %+v, want kept (%s)", id, o, retention.CodeDependency)
		}
	}
	checkPrecious(t, b.PkgPath(chainApp)+"/config")
	wholeStore(t, b.Root, chainApp, chainMid, chainLib)
}
