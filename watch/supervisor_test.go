package watch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// The tests in this file compare watch's purge with the Supervisor's own,
// `hab sup run --keep-latest-packages N`, as Habitat's code does it
// (habitat-sh/habitat):
//
//   - components/sup/src/manager.rs: add_service_rsw_mlw_rhw_msr calls
//     maybe_uninstall_old_packages(spec.ident) after it starts a service
//     (at start-up for every spec, and after each update restarts it);
//     at start-up, maybe_uninstall_old_packages(THIS_SUPERVISOR_FUZZY_IDENT)
//     when the newest installed hab-sup is the one running.
//   - components/sup/src/util/pkg.rs: uninstall_all_but_latest with
//     Scope::PackageAndDependencies and UninstallSafety::Safe.
//   - components/hab/src/command/pkg/uninstall/uninstall_impl.rs:
//     uninstall_all_but_latest lists the releases that satisfy the spec's
//     ident (package_list), keeps the newest N (the running one among
//     them or not: loaded releases are skipped) and passes the rest to
//     uninstall_many, which removes each with every dependency that has no
//     reverse dependency outside what is being removed, whatever its own
//     package's count.

// pinnedRedis: three releases of core/redis/6.2.5 (01 to 03) and two of
// 7.0.0 (04, 05), all old, a spec loading core/redis/6.2.5, and 6.2.5's
// release 06 published for the update.
func pinnedRedis(t *testing.T) (*storetest.Builder, *storetest.Installer) {
	b := storetest.New(t).Old(
		"core/redis/6.2.5/20200101000001", "core/redis/6.2.5/20200101000002", "core/redis/6.2.5/20200101000003",
		"core/redis/7.0.0/20200101000004", "core/redis/7.0.0/20200101000005",
	)
	b.Spec("redis", "core/redis/6.2.5")
	in := storetest.NewInstaller(b.Root, 1)
	in.Publish(storetest.Archive{Ident: "core/redis/6.2.5/20200101000006"})
	return b, in
}

// TestPinnedSpecKeepsItsVersionsNewest: a spec pinned to core/redis/6.2.5
// purges 6.2.5's releases only, keeping its newest N: package_list of
// core/redis/6.2.5 lists 01, 02, 03 and 06, the newest two (06, 03) stay,
// 01 and 02 go; 7.0.0's releases, which the spec never runs, are not
// listed and not counted.
func TestPinnedSpecKeepsItsVersionsNewest(t *testing.T) {
	b, in := pinnedRedis(t)
	w := start(t, b.Root, watch.Options{Policy: retention.Policy{KeepLatest: 2}})
	if err := in.Install("core/redis/6.2.5/20200101000006"); err != nil {
		t.Fatal(err)
	}
	restart(t, b.Root, "redis")
	p := w.next(t, 20*time.Second)
	if p.Err != nil || p.Package.String() != "core/redis" {
		t.Fatalf("purge %s: %v", p.Package, p.Err)
	}
	installed(t, b, map[string]bool{
		"core/redis/6.2.5/20200101000001": false, "core/redis/6.2.5/20200101000002": false,
		"core/redis/6.2.5/20200101000003": true, "core/redis/6.2.5/20200101000006": true,
		"core/redis/7.0.0/20200101000004": true, "core/redis/7.0.0/20200101000005": true,
	})
	t.Run("whole package, asked for by name", func(t *testing.T) {
		b, in := pinnedRedis(t)
		w := start(t, b.Root, watch.Options{Policy: retention.Policy{KeepLatest: 2}, WholePackage: true})
		if err := in.Install("core/redis/6.2.5/20200101000006"); err != nil {
			t.Fatal(err)
		}
		restart(t, b.Root, "redis")
		if p := w.next(t, 20*time.Second); p.Err != nil {
			t.Fatal(p.Err)
		}
		// hab-gc's own count over the whole package: the newest two of
		// core/redis (7.0.0's) and the running 06 stay; 03 goes.
		installed(t, b, map[string]bool{
			"core/redis/6.2.5/20200101000001": false, "core/redis/6.2.5/20200101000002": false,
			"core/redis/6.2.5/20200101000003": false, "core/redis/6.2.5/20200101000006": true,
			"core/redis/7.0.0/20200101000004": true, "core/redis/7.0.0/20200101000005": true,
		})
	})
}

// depsFixture: acme/app/1.0 needs acme/liba/1.0 and acme/liby/1, the only
// releases of their packages, which nothing else needs; core/shared is
// needed by app/1.0 and by core/tool (kept: a package no spec loads);
// app/2.0, the update, needs acme/libz.
func depsFixture(t *testing.T) (*storetest.Builder, *storetest.Installer) {
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "acme/liba/1.0/20200101000000", ModTime: old},
		storetest.Release{Ident: "acme/liby/1/20200101000000", ModTime: old},
		storetest.Release{Ident: "core/shared/1/20200101000000", ModTime: old},
		storetest.Release{Ident: "core/tool/1/20200101000000", Deps: []string{"core/shared/1/20200101000000"}, ModTime: old},
		storetest.Release{Ident: "acme/app/1.0/20200101000000", ModTime: old,
			Deps: []string{"acme/liba/1.0/20200101000000", "acme/liby/1/20200101000000", "core/shared/1/20200101000000"}})
	b.Spec("app", "acme/app")
	in := storetest.NewInstaller(b.Root, 1)
	in.Publish(storetest.Archive{Ident: "acme/app/2.0/20260101000000", Deps: []string{"acme/libz/1/20260101000000"}},
		storetest.Archive{Ident: "acme/libz/1/20260101000000"})
	return b, in
}

// TestFreedDependenciesGo: uninstall_many removes each dependency of a
// removed release that no release outside the removal needs, whatever
// its own package's count (liba and liby are their packages' only
// releases); core/shared, which core/tool needs, stays. With NoDeps
// (Scope::Package, Habitat's --no-deps) they all stay.
func TestFreedDependenciesGo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		noDeps bool
	}{{"freed dependencies go", false}, {"no-deps keeps them", true}} {
		t.Run(tc.name, func(t *testing.T) {
			b, in := depsFixture(t)
			w := start(t, b.Root, watch.Options{Policy: retention.Policy{KeepLatest: 1, NoDeps: tc.noDeps}})
			if err := in.Install("acme/app/2.0/20260101000000"); err != nil {
				t.Fatal(err)
			}
			restart(t, b.Root, "app")
			p := w.next(t, 20*time.Second)
			if p.Err != nil || p.Package.String() != "acme/app" {
				t.Fatalf("purge %s: %v", p.Package, p.Err)
			}
			installed(t, b, map[string]bool{
				"acme/app/1.0/20200101000000": false, "acme/app/2.0/20260101000000": true,
				"acme/liba/1.0/20200101000000": tc.noDeps, "acme/liby/1/20200101000000": tc.noDeps,
				"core/shared/1/20200101000000": true, "core/tool/1/20200101000000": true,
				"acme/libz/1/20260101000000": true,
			})
		})
	}
}

// TestPurgeAtStart: the Supervisor purges every service as it starts it
// at start-up; a watch started on a store already over the limit purges
// every loaded service's package after its delay, with nothing installed.
func TestPurgeAtStart(t *testing.T) {
	b, _ := fixture(t) // core/redis: 6.2.5 and 6.2.6, loaded
	b.Add(storetest.Release{Ident: "core/redis/6.2.7/20200301000000", ModTime: old})
	w := startOnly(t, b.Root, watch.Options{Policy: retention.Policy{KeepLatest: 1}})
	p := w.nextStart(t, 20*time.Second)
	if p.Err != nil || p.Package.String() != "core/redis" || p.Trigger != watch.TriggerStart {
		t.Fatalf("purge %s (%s): %v", p.Package, p.Trigger, p.Err)
	}
	installed(t, b, map[string]bool{
		"core/redis/6.2.5/20200101000000": false, "core/redis/6.2.6/20200201000000": false,
		"core/redis/6.2.7/20200301000000": true,
		"core/nginx/1.19/20190101000000":  true, // no spec: not the Supervisor's to purge
	})
	w.none(t, 3*delay)
	select {
	case p := <-w.starts:
		t.Fatalf("a second purge at start, of %s", p.Package)
	default:
	}
}

// TestSupervisorPurgesItself: at start-up the Supervisor purges its own
// package, chef/hab-sup, only when it runs the newest release installed
// (manager.rs: "Only cleanup supervisor packages if we are running the
// latest installed version"). The process is real: a copy of sleep run as
// the release's bin/hab-sup, found by its executable.
func TestSupervisorPurgesItself(t *testing.T) {
	const r1, r2, r3 = "chef/hab-sup/1.6.1/20230101000000", "chef/hab-sup/1.6.2/20230201000000", "chef/hab-sup/1.6.3/20230301000000"
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	bin, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, runs string
		purged     bool
	}{{"runs the newest", r3, true}, {"runs an older release", r2, false}} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Old(r1, r2, r3)
			exe := filepath.Join(b.PkgPath(tc.runs), "bin", "hab-sup")
			if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(exe, bin, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "60")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			w := startOnly(t, b.Root, watch.Options{Policy: retention.Policy{KeepLatest: 1}})
			if !tc.purged {
				w.none(t, 4*delay)
				select {
				case p := <-w.starts:
					t.Fatalf("purged %s at start: %+v", p.Package, p.Result)
				default:
				}
				if !strings.Contains(w.log.String(), "not the newest installed release, "+r3) {
					t.Errorf("the log does not say why the Supervisor's package is not purged:\n%s", w.log)
				}
				installed(t, b, map[string]bool{r1: true, r2: true, r3: true})
				return
			}
			p := w.nextStart(t, 20*time.Second)
			if p.Err != nil || p.Package.String() != "chef/hab-sup" {
				t.Fatalf("purge %s: %v", p.Package, p.Err)
			}
			installed(t, b, map[string]bool{r1: false, r2: false, r3: true})
		})
	}
}

// TestOnlyOtherVersionThanSpec: --only core/redis/7.0.0 with a spec pinned
// to core/redis/6.2.5 leaves the purge nothing it may remove (what both
// name: no release), and its log says so, not that the spec names one
// release (it names a version).
func TestOnlyOtherVersionThanSpec(t *testing.T) {
	b := storetest.New(t)
	b.Old("core/redis/6.2.5/20200101000001", "core/redis/6.2.5/20200101000002", "core/redis/7.0.0/20200101000003", "core/redis/7.0.0/20200101000004")
	b.Spec("redis", "core/redis/6.2.5")
	only, err := pkgstore.ParseIdent("core/redis/7.0.0")
	if err != nil {
		t.Fatal(err)
	}
	w := startOnly(t, b.Root, watch.Options{Policy: retention.Policy{KeepLatest: 1, Only: []pkgstore.Ident{only}}})
	for end := time.Now().Add(10 * time.Second); !strings.Contains(w.log.String(), "nothing to purge"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no purge at start within 10s; log:\n%s", w.log)
		}
	}
	if strings.Contains(w.log.String(), "names one release") {
		t.Errorf("the log says the spec names one release:\n%s", w.log)
	}
	installed(t, b, map[string]bool{
		"core/redis/6.2.5/20200101000001": true, "core/redis/6.2.5/20200101000002": true,
		"core/redis/7.0.0/20200101000003": true, "core/redis/7.0.0/20200101000004": true,
	})
}
