package retention_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// The releases of the install tests: app needs depOld (installed, old,
// superseded by depNew, so keep-latest 1 removes it unless something
// keeps it); lib is not installed and needs nothing installed.
const (
	appIdent = "core/app/1.0/20261201000000"
	libIdent = "core/lib/1.0/20261201000000"
)

// installStore is depOld and depNew installed long ago, and an Installer
// for the store with app (needing depOld, and lib when withLib) and lib
// published; when cached, app's (and lib's) archive has been in the
// artifact cache for days.
func installStore(t *testing.T, seed uint64, cached, withLib, metaLast bool) (*storetest.Builder, *storetest.Installer) {
	t.Helper()
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	in := storetest.NewInstaller(b.Root, seed)
	tdeps := []string{depOld}
	if withLib {
		tdeps = []string{libIdent, depOld}
	}
	app := storetest.Archive{Ident: appIdent, Deps: tdeps, Payload: []string{"bin/app", "lib/libapp.so", "share/doc"}, MetaLast: metaLast}
	lib := storetest.Archive{Ident: libIdent, Payload: []string{"lib/liblib.so", "lib/liblib.a"}, MetaLast: metaLast}
	if cached {
		for _, a := range []storetest.Archive{app, lib} {
			if err := in.Cache(a, 72*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		in.Publish(app, lib)
	}
	in.Publish(storetest.Archive{Ident: depOld}) // Habitat reinstalls it when it finds it missing
	return b, in
}

// runGC is one real run, as `hab-gc run --keep-latest=1 --min-age=none`
// does it: PlanStore, then Apply (with a short settle pause).
//
// ahead moves its clock on: an archive cached and an install directory
// last changed less than ahead ago then look older than they are (a test
// cannot age a ctime).
func runGC(t testing.TB, root string, ahead, settle time.Duration, onPhase func(retention.PhaseEvent)) (*retention.Plan, *retention.Result) {
	t.Helper()
	s, err := pkgstore.Open(root)
	if err != nil {
		t.Error(err)
		return nil, nil
	}
	defer s.Close()
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	clock := func() time.Time { return time.Now().Add(ahead) }
	p, err := retention.PlanStore(context.Background(), s, pol, clock(), pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Error(err)
		return nil, nil
	}
	res, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: settle, OnPhase: onPhase, Now: clock})
	if err != nil {
		t.Error(err)
	}
	return p, res
}

// planNow is a dry run as `hab-gc run --keep-latest=1 --min-age=none
// --dry-run` makes it, its clock ahead (scan's Target x86_64-linux when
// empty).
func planNow(t testing.TB, root string, ahead time.Duration, scan pkgstore.Options) *retention.Plan {
	t.Helper()
	s, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if scan.Target == "" {
		scan.Target = "x86_64-linux"
	}
	p, err := retention.PlanStore(context.Background(), s, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, time.Now().Add(ahead), scan)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// planKeeps reports whether a dry run (planNow) keeps ident.
func planKeeps(t testing.TB, root string, ahead time.Duration, ident string) (bool, []retention.Reason) {
	t.Helper()
	p := planNow(t, root, ahead, pkgstore.Options{})
	d, ok := p.Decision(pkgstore.MustParseIdent(ident))
	return !ok || d.Action == retention.Keep, d.Reasons
}

// requireWhole fails when any installed release lacks a dependency
// (check's dep-not-installed).
func requireWhole(t testing.TB, root string) {
	t.Helper()
	inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range inv.Problems {
		if pr.Kind == pkgstore.ProblemDepMissing {
			t.Errorf("%s", pr)
		}
	}
}

// installPause is a point of Habitat's install at which a test acts.
type installPause struct {
	name     string
	cached   bool // app's archive was cached days ago
	withLib  bool // app also needs lib, not installed: Habitat installs it first
	metaLast bool // the archive's metadata files come after its payload
	at       func(p storetest.Point) bool
	// gap: nothing on disk tells of the install at this point (the
	// archive was cached days ago, its deps found installed, its temp
	// directory not made yet). The run starts here and the install goes on
	// while the run hides (the gap lasts microseconds in Habitat); the
	// run's last check must see it.
	gap bool
	// before, when set, is done at the pause before the run.
	before func(t *testing.T, in *storetest.Installer)
	// stale: app's archive is seen as cached long ago, as it is on a real
	// machine (the test cannot age its ctime): the runs' clocks are two
	// hours ahead, so that nothing but what is read of the install can
	// keep what it needs (its install directory is then two hours old by
	// that clock too).
	stale bool
	// unseen: app's archive is cached long ago and this install's own
	// directory is not made yet; the archive is moved out of the cache
	// while the run looks (and back before the install reads it again),
	// so that only the other installs in progress show (a test cannot age
	// the archive's ctime).
	unseen bool
}

func installPauses() []installPause {
	top := func(s storetest.Step) func(storetest.Point) bool {
		return func(p storetest.Point) bool { return p.Top && p.Step == s }
	}
	return []installPause{
		// The archive was just downloaded, its TDEPS read and depOld
		// found installed ("Using"): nothing else exists yet.
		{name: "archive just fetched, dependency Using", at: func(p storetest.Point) bool {
			return p.Step == storetest.StepUsing && p.Ident == depOld
		}},
		{name: "archive fetched, deps checked", at: top(storetest.StepDepsChecked)},
		{name: "archive cached days ago, deps checked", cached: true, gap: true, unseen: true, at: top(storetest.StepDepsChecked)},
		{name: "archive cached days ago, temp dir empty", cached: true, stale: true, at: top(storetest.StepTempDir)},
		{name: "fetched, half unpacked before DEPS and TDEPS", metaLast: true, at: func(p storetest.Point) bool {
			return p.Top && p.Step == storetest.StepUnpacking && p.Done == p.Total/2
		}},
		{name: "cached days ago, half unpacked before DEPS and TDEPS", cached: true, stale: true, metaLast: true, at: func(p storetest.Point) bool {
			return p.Top && p.Step == storetest.StepUnpacking && p.Done == p.Total/2
		}},
		{name: "cached days ago, unpacked not renamed", cached: true, stale: true, at: top(storetest.StepUnpacked)},
		{name: "cached days ago, a missing dep being unpacked first", cached: true, unseen: true, withLib: true, metaLast: true, at: func(p storetest.Point) bool {
			return p.Ident == libIdent && p.Step == storetest.StepUnpacking && p.Done == 2
		}},
		{name: "cached days ago, missing dep installed, app's temp dir not made", cached: true, unseen: true, withLib: true, gap: true, at: func(p storetest.Point) bool {
			return p.Ident == libIdent && p.Step == storetest.StepInstalled
		}},
		{name: "renamed, temp dir not removed", cached: true, stale: true, at: top(storetest.StepRenamed)},
		// Nothing can be read of what the install needs: its archive is
		// gone from the cache and its metadata files not unpacked yet.
		{name: "half unpacked, archive gone from the cache", cached: true, metaLast: true, at: func(p storetest.Point) bool {
			return p.Top && p.Step == storetest.StepUnpacking && p.Done == 1
		}, before: func(t *testing.T, in *storetest.Installer) {
			if err := os.Remove(in.ArchivePath(appIdent)); err != nil {
				t.Fatal(err)
			}
		}},
	}
}

// TestInstallInProgressKeepsWhatItNeeds runs hab-gc at each point of
// Habitat's install window: the dry run keeps what the install needs, the
// real run removes none of it, and when the install ends every installed
// release has its dependencies.
func TestInstallInProgressKeepsWhatItNeeds(t *testing.T) {
	for _, tt := range installPauses() {
		t.Run(tt.name, func(t *testing.T) {
			b, in := installStore(t, 1, tt.cached, tt.withLib, tt.metaLast)
			paused := false
			in.At = func(p storetest.Point) error {
				if paused || !tt.at(p) {
					return nil
				}
				paused = true
				if tt.before != nil {
					tt.before(t, in)
				}
				var ahead time.Duration
				if tt.stale {
					ahead = 2 * time.Hour
				}
				var holder *proctest.Proc
				if p.Step == storetest.StepUnpacked {
					// A running `hab pkg install` is a process: one works
					// in its install directory, as the real one would.
					holder = proctest.Start(t, proctest.Cwd, filepath.Join(p.Path, "hab"))
				}
				putBack := func() {}
				if tt.unseen {
					putBack = moveAside(t, in.ArchivePath(appIdent))
				}
				if tt.gap {
					gapRun(t, b.Root, in, putBack)
					return nil
				}
				if keep, why := planKeeps(t, b.Root, ahead, depOld); !keep {
					t.Errorf("dry run at %s %s removes %s: %v", p.Step, p.Ident, depOld, why)
				}
				runGC(t, b.Root, ahead, 10*time.Millisecond, nil)
				putBack()
				if holder != nil {
					holder.Stop()
				}
				if !in.Installed(depOld) {
					t.Errorf("the run at %s %s removed %s", p.Step, p.Ident, depOld)
				}
				return nil
			}
			if err := in.Install(appIdent); err != nil {
				t.Fatal(err)
			}
			if !paused {
				t.Fatal("never paused")
			}
			requireWhole(t, b.Root)
		})
	}
}

// gapRun starts a run while nothing on disk shows the install, lets the
// install go on (after putBack) once the run has hidden what it removes
// (PhaseSettle), and holds the install at its first entry until the run
// has ended.
func gapRun(t *testing.T, root string, in *storetest.Installer, putBack func()) {
	hidden := make(chan struct{})
	ended := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(ended)
		runGC(t, root, 0, 50*time.Millisecond, func(e retention.PhaseEvent) {
			if e.Phase == retention.PhaseSettle {
				once.Do(func() { close(hidden) })
			}
		})
		once.Do(func() { close(hidden) })
	}()
	<-hidden
	putBack()
	prev := in.At
	held := false
	in.At = func(p storetest.Point) error {
		if !held && p.Step == storetest.StepUnpacking {
			held = true
			<-ended
		}
		return prev(p)
	}
}

// moveAside moves a file out of its directory and returns the function
// that puts it back.
func moveAside(t *testing.T, path string) func() {
	t.Helper()
	aside := filepath.Join(testtool.TempDir(t), filepath.Base(path))
	if err := os.Rename(path, aside); err != nil {
		t.Fatal(err)
	}
	done := false
	return func() {
		if !done {
			done = true
			if err := os.Rename(aside, path); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestRunsRaceInstalls races real runs against Habitat installs, many
// times, each install's archive fetched or cached days ago, its deps
// Using or installed first, its metadata first or last: no installed
// release ever lacks a dependency.
func TestRunsRaceInstalls(t *testing.T) {
	rounds := 24
	if testing.Short() {
		rounds = 6
	}
	for round := 0; round < rounds; round++ {
		cached, withLib, metaLast := round%2 == 1, round%3 == 1, round%4 >= 2
		b, in := installStore(t, uint64(round), cached, withLib, metaLast)
		var steps atomic.Int64
		in.At = func(p storetest.Point) error {
			steps.Add(1)
			time.Sleep(time.Duration(p.Done%3) * time.Millisecond)
			return nil
		}
		done := make(chan error, 1)
		go func() {
			time.Sleep(time.Duration(round%5) * 2 * time.Millisecond)
			done <- in.Install(appIdent)
		}()
		runs := 0
	loop:
		for {
			runGC(t, b.Root, 0, 5*time.Millisecond, nil)
			runs++
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				break loop
			default:
			}
		}
		if !in.Installed(appIdent) {
			t.Fatalf("round %d: app not installed", round)
		}
		requireWhole(t, b.Root)
		if t.Failed() {
			t.Fatalf("round %d (cached %v, lib %v, meta last %v): %d runs, %d install steps", round, cached, withLib, metaLast, runs, steps.Load())
		}
	}
}

// TestInstallDirUnreadableAsNonRoot: Habitat makes its install directory
// mode 0700 (tempfile's TempDir), so a hab-gc that is not root cannot look
// into an install root runs; the release it installs is told by the
// directory's name and what it needs read from its archive in the cache.
// As root, the check runs in a copy of this test binary as nobody, while
// the install is held with its release unpacked and not renamed.
func TestInstallDirUnreadableAsNonRoot(t *testing.T) {
	const env = "HAB_GC_TEST_INSTALL_DIR_ROOT"
	if root := os.Getenv(env); root != "" {
		if os.Geteuid() == 0 {
			t.Fatal("child still runs as root")
		}
		// Two hours on: the install directory and the archive look old,
		// so only what is read can keep depOld.
		keep, why := planKeeps(t, root, 2*time.Hour, depOld)
		if !keep || !hasReason(why, retention.CodeInstalling, "hab/cache/artifacts/") {
			t.Fatalf("dry run as nobody: keep %v, %v", keep, why)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to install as Habitat does and check as nobody")
	}
	dir := testtool.TempDir(t)
	testtool.OpenToOthers(t, dir)
	b := storetest.At(t, dir)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	in := storetest.NewInstaller(b.Root, 9)
	if err := in.Cache(storetest.Archive{Ident: appIdent, Deps: []string{depOld}, Payload: []string{"bin/app"}}, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	bin := testtool.CopyTestBinary(t, dir, "retention.test")
	checked := false
	in.At = func(p storetest.Point) error {
		if !p.Top || p.Step != storetest.StepUnpacked {
			return nil
		}
		checked = true
		if fi, err := os.Stat(p.Path); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("install directory %v, %v; want mode 0700", fi, err)
		}
		passAsNobody(t, bin, "TestInstallDirUnreadableAsNonRoot", env, dir)
		return nil
	}
	if err := in.Install(appIdent); err != nil {
		t.Fatal(err)
	}
	if !checked {
		t.Fatal("never paused")
	}
}
