package retention_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

var fast = retention.ApplyOptions{Settle: -1}

// planAndApply scans, plans with pol (no minimum age) and applies.
func planAndApply(t *testing.T, root string, pol retention.Policy, opts retention.ApplyOptions) (*retention.Plan, *retention.Result) {
	t.Helper()
	p := planAt(t, root, pol)
	return p, applyPlan(t, p, root, opts)
}

func planAt(t *testing.T, root string, pol retention.Policy) *retention.Plan {
	t.Helper()
	pol.MinAge = retention.NoMinAge
	inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux", Sizes: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := retention.Compute(inv, pol, nil, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func applyPlan(t *testing.T, p *retention.Plan, root string, opts retention.ApplyOptions) *retention.Result {
	t.Helper()
	s, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := p.Apply(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func outcome(res *retention.Result, ident string) (retention.RemovalOutcome, bool) {
	for _, o := range res.Outcomes {
		if o.Ident.String() == ident {
			return o, true
		}
	}
	return retention.RemovalOutcome{}, false
}

func TestApplyRemovesAndPrunes(t *testing.T) {
	b := base(t)
	oldPkg(b, "core/lonely/1.0/20200101000000")
	_, res := planAndApply(t, b.Root, retention.Policy{KeepLatest: 1}, fast)
	for _, gone := range []string{redis1, redis2, redis3, glibc1} {
		if exists(b.PkgPath(gone)) {
			t.Errorf("%s still there", gone)
		}
	}
	for _, kept := range []string{redis3b, glibc2, "core/lonely/1.0/20200101000000"} {
		if !exists(b.PkgPath(kept) + "/TARGET") {
			t.Errorf("%s was removed", kept)
		}
	}
	// Empty VERSION directories go; non-empty ones stay.
	if exists(b.Path("hab/pkgs/core/redis/4.0.14")) || !exists(b.Path("hab/pkgs/core/redis/6.2.6")) {
		t.Error("empty version directories not pruned correctly")
	}
	if res.Removed != 4 || res.Failed != 0 || res.BytesFreed <= 0 {
		t.Errorf("result: %+v", res)
	}
	// Nothing left behind, and a second run has nothing to do.
	inv, _ := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if len(inv.Debris) != 0 || len(inv.Problems) != 0 {
		t.Errorf("debris %v problems %v", inv.Debris, inv.Problems)
	}
	if p := planAt(t, b.Root, retention.Policy{KeepLatest: 1}); len(p.Removals()) != 0 {
		t.Errorf("second plan removes %d", len(p.Removals()))
	}
}

func TestApplyWholePackageGoesWithItsDirectories(t *testing.T) {
	b := storetest.New(t)
	oldPkg(b, "core/a/1/1")
	_, res := planAndApply(t, b.Root, retention.Policy{KeepLatest: retention.KeepNone}, fast)
	if res.Removed != 1 || exists(b.Path("hab/pkgs/core")) {
		t.Fatalf("origin directory left: %+v", res)
	}
	if !exists(b.Path("hab/pkgs")) {
		t.Fatal("the store itself was removed")
	}
}

// sentinel makes a directory outside the store with files that must
// survive everything.
func sentinel(t *testing.T) string {
	dir := testtool.TempDir(t)
	for _, f := range []string{"a", "sub/b"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("keep me"), 0o644)
	}
	return dir
}

func checkSentinel(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"a", "sub/b"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != "keep me" {
			t.Errorf("sentinel %s damaged: %v", f, err)
		}
	}
}

func TestApplyNeverFollowsSymlinks(t *testing.T) {
	testtool.NeedSymlinks(t)
	out := sentinel(t)
	b := base(t)
	// Symlinks inside a release to remove: at the top, deep inside, to a
	// directory and to a file, absolute and relative.
	dir := b.PkgPath(redis1)
	b.Symlink(out, "hab/pkgs/"+redis1+"/link-to-dir")
	b.Symlink(out+"/a", "hab/pkgs/"+redis1+"/link-to-file")
	b.Mkdir("hab/pkgs/" + redis1 + "/bin/deep")
	b.Symlink("../../../../../../../../"+out, "hab/pkgs/"+redis1+"/bin/deep/rel")
	b.Symlink(out, "hab/pkgs/"+redis1+"/hooks")
	// A dangling binlink and a binlink into a release outside.
	b.Binlink("bin", "x", out+"/a")

	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	// Between plan and apply, a release directory is swapped for a
	// symlink to the outside.
	testtool.RemoveAll(b.PkgPath(redis2))
	os.Symlink(out, b.PkgPath(redis2))
	// The store now holds a symlinked release: what it needs is unknown,
	// so applying refuses as a whole.
	s, _ := pkgstore.Open(b.Root)
	defer s.Close()
	if _, err := p.Apply(context.Background(), s, fast); !errors.Is(err, retention.ErrDamaged) {
		t.Fatalf("got %v, want ErrDamaged", err)
	}
	checkSentinel(t, out)
	if !exists(dir + "/TARGET") {
		t.Fatal("removed something from a damaged store")
	}
	// Allowed to proceed, it still removes nothing while the symlinked
	// release is there (Habitat lists it, and what it needs is unknown),
	// and leaves the link alone.
	p.Policy.AllowDamaged = true
	res := applyPlan(t, p, b.Root, fast)
	checkSentinel(t, out)
	if !exists(dir + "/TARGET") {
		t.Error("removed a release while a symlinked release may need it")
	}
	if o, _ := outcome(res, redis2); o.Status != retention.StatusKept {
		t.Errorf("swapped release: %+v", o)
	}
	if fi, err := os.Lstat(b.PkgPath(redis2)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the planted symlink should be left alone")
	}
	// Once the operator removes the link, the release with symlinks inside
	// goes, and nothing they point at is touched.
	if err := os.Remove(b.PkgPath(redis2)); err != nil {
		t.Fatal(err)
	}
	applyPlan(t, p, b.Root, fast)
	checkSentinel(t, out)
	if exists(dir) {
		t.Error("release with symlinks not removed")
	}
}

func TestApplyVersionDirSwappedForSymlink(t *testing.T) {
	testtool.NeedSymlinks(t)
	out := sentinel(t)
	b := base(t)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	// Move the whole version directory outside and leave a symlink.
	os.Rename(b.Path("hab/pkgs/core/redis/4.0.14"), filepath.Join(out, "moved"))
	os.Symlink(filepath.Join(out, "moved"), b.Path("hab/pkgs/core/redis/4.0.14"))
	p.Policy.AllowDamaged = true
	res := applyPlan(t, p, b.Root, fast)
	checkSentinel(t, out)
	if !exists(filepath.Join(out, "moved", "20200101000000", "TARGET")) {
		t.Error("a release outside the store was touched")
	}
	if o, _ := outcome(res, redis1); o.Status == retention.StatusRemoved {
		t.Errorf("outcome %+v", o)
	}
}

func TestApplyRevalidates(t *testing.T) {
	tests := []struct {
		name   string
		change func(b *storetest.Builder)
		ident  string
		says   string
	}{
		{"new dependent installed since the plan", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "core/new/1/20261130000000", Deps: []string{redis2}})
		}, redis2, "dependency of core/new/1/20261130000000"},
		{"service loaded since the plan", func(b *storetest.Builder) {
			b.Spec("redis", "core/redis/5.0.1")
		}, redis2, "loaded service redis"},
		{"directory replaced since the plan", func(b *storetest.Builder) {
			os.Rename(b.PkgPath(redis2), b.PkgPath(redis2)+".old")
			b.Add(storetest.Release{Ident: redis2, Deps: []string{glibc2}})
			testtool.RemoveAll(b.PkgPath(redis2) + ".old")
		}, redis2, "replaced"},
		{"removed by someone else", func(b *storetest.Builder) {
			testtool.RemoveAll(b.PkgPath(redis2))
		}, redis2, "no longer installed"},
		// A killed install (two hours ago, by Apply's clock) of a release
		// that needs redis2, stopped with its release unpacked and not
		// renamed into place: what it names stays, the rest goes.
		{"install in progress needs it", func(b *storetest.Builder) {
			killedInstall(t, b.Root, storetest.Archive{Ident: "core/next/1/20261130000000", Deps: []string{redis2}}, storetest.StepUnpacked)
		}, redis2, "install in progress"},
	}
	// A limited plan (a watch purge's: core/redis alone, freeing what
	// only its removed releases need) is revalidated with its policy.
	limited := func(t *testing.T, root string) *retention.Plan {
		p, err := retention.PlanStore(context.Background(), storetest.Open(t, root),
			retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, FreeDeps: true, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")}},
			now, pkgstore.Options{Target: "x86_64-linux"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	whole := func(t *testing.T, root string) *retention.Plan {
		return planAt(t, root, retention.Policy{KeepLatest: 1})
	}
	for _, tt := range tests {
		for planner, planOf := range map[string]func(*testing.T, string) *retention.Plan{"whole": whole, "limited": limited} {
			t.Run(tt.name+"/"+planner, func(t *testing.T) {
				b := base(t)
				if planner == "limited" {
					oldPkg(b, "core/other/1/20200101000000", glibc1) // outside its scope: glibc1 stays
				}
				p := planOf(t, b.Root)
				tt.change(b)
				opts := fast
				opts.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
				res := applyPlan(t, p, b.Root, opts)
				o, ok := outcome(res, tt.ident)
				want := retention.StatusKept
				if strings.Contains(tt.name, "removed by") {
					want = retention.StatusGone // not kept by Apply: it was no longer there
				}
				if !ok || o.Status != want || !strings.Contains(reasonText(o.Reasons), tt.says) {
					t.Fatalf("%s: %+v", tt.ident, o)
				}
				if !strings.Contains(tt.name, "removed by") && !exists(b.PkgPath(tt.ident)+"/TARGET") {
					t.Fatalf("%s is gone", tt.ident)
				}
				if o, _ := outcome(res, redis1); o.Status != retention.StatusRemoved {
					t.Errorf("the rest should proceed: %+v", o)
				}
			})
		}
	}
}

func reasonText(rs []retention.Reason) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.Text)
	}
	return strings.Join(s, "; ")
}

func TestApplyLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no table of lock holders (Linux's /proc/locks): the holder is named by the pid in the lock file, unverified")
	}
	b := base(t)
	s := storetest.Open(t, b.Root)
	unlock, err := s.Lock(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	start := time.Now()
	_, err = p.Apply(context.Background(), s, retention.ApplyOptions{LockTimeout: 300 * time.Millisecond})
	var le *pkgstore.LockedError
	if !errors.As(err, &le) || !errors.Is(err, pkgstore.ErrLocked) || le.Holder != os.Getpid() {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) < 300*time.Millisecond {
		t.Fatal("did not wait for the lock")
	}
	if !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("error does not name the holder: %v", err)
	}
	if !exists(b.PkgPath(redis1)) {
		t.Fatal("removed without the lock")
	}
	unlock()
	if _, err := p.Apply(context.Background(), s, fast); err != nil {
		t.Fatal(err)
	}
}

func TestApplyOneFailureDoesNotStopTheRest(t *testing.T) {
	b := base(t)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	stuck := b.PkgPath(redis2) + "/MANIFEST"
	if err := exec.Command("chattr", "+i", stuck).Run(); err != nil {
		t.Skipf("chattr +i not available here: %v", err)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", stuck).Run() })
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	res := applyPlan(t, p, b.Root, fast)
	o, _ := outcome(res, redis2)
	if o.Status != retention.StatusFailed || o.Err == nil || o.ErrorText() == "" || !res.Partial() {
		t.Fatalf("stuck release: %+v, partial=%v", o, res.Partial())
	}
	if o, _ := outcome(res, redis1); o.Status != retention.StatusRemoved {
		t.Fatalf("others must proceed: %+v", o)
	}
	// The stuck release is hidden from Habitat; once fixed, the next run
	// finishes it.
	hidden, _ := filepath.Glob(filepath.Join(filepath.Dir(b.PkgPath(redis2)), pkgstore.DebrisPrefix+"*", "MANIFEST"))
	if len(hidden) != 1 {
		t.Fatalf("the stuck release should be hidden: %v", hidden)
	}
	exec.Command("chattr", "-i", hidden[0]).Run()
	applyPlan(t, planAt(t, b.Root, retention.Policy{KeepLatest: 1}), b.Root, fast)
	inv, _ := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if len(inv.Debris) != 0 {
		t.Fatalf("debris left: %v", inv.Debris)
	}
}

// killedInstall installs a as Habitat does (storetest.Installer) and stops
// it at step, as a killed `hab pkg install` would: what it wrote stays.
func killedInstall(t *testing.T, root string, a storetest.Archive, step storetest.Step) {
	t.Helper()
	in := storetest.NewInstaller(root, 7).Publish(a)
	in.At = func(p storetest.Point) error {
		if p.Top && p.Step == step {
			return errKilled
		}
		return nil
	}
	if err := in.Install(a.Ident); !errors.Is(err, errKilled) {
		t.Fatalf("install %s: %v", a.Ident, err)
	}
}

var errKilled = errors.New("killed")
