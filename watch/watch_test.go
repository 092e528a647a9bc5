package watch_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// delay is the tests' --delay: short, and long enough for a loaded
// machine to deliver an install's events within it.
const delay = 300 * time.Millisecond

// clock runs two hours ahead, so that install directories and archives
// the test made are older than the install window by it. The releases the
// test made are young by the real clock, which the plan judges the
// minimum age by too: start sets no minimum age unless
// the test sets one.
func clock() time.Time { return time.Now().Add(2 * time.Hour) }

var old = storetest.OldTime()

// logBuf is a slog destination the test can read while Run writes.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *logBuf) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// watcher is a running watch.Run.
type watcher struct {
	purges chan watch.Purge
	// starts are the purges at start (TriggerStart), apart: every test
	// store with a loaded service gets one, Delay after Run starts.
	starts chan watch.Purge
	log    *logBuf
}

// start runs watch.Run on the store under root until the test ends, and
// returns once its watches are set and the purge at start of each loaded
// service (one a spec file: the fixtures load one package each) is done,
// so that what the test installs next is purged on update.
func start(t *testing.T, root string, o watch.Options) *watcher {
	t.Helper()
	w := startOnly(t, root, o)
	specs, _ := filepath.Glob(filepath.Join(root, pkgstore.SpecsDir, "*.spec"))
	for _, spec := range specs {
		if fi, err := os.Lstat(spec); err == nil && fi.Mode().IsRegular() { // a FIFO loads nothing
			w.nextStart(t, 20*time.Second)
		}
	}
	return w
}

// startOnly is start without waiting for the purges at start.
func startOnly(t *testing.T, root string, o watch.Options) *watcher {
	t.Helper()
	store, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	w := &watcher{purges: make(chan watch.Purge, 16), starts: make(chan watch.Purge, 16), log: &logBuf{}}
	o.Store = store
	if o.Scan.Target == "" {
		// The fixtures' (x86_64-linux): on Windows, where these tests
		// run under Wine too, the default target is x86_64-windows.
		o.Scan.Target = storetest.DefaultTarget
	}
	if o.Policy.KeepLatest == 0 {
		o.Policy.KeepLatest = 2
	}
	if o.Policy.MinAge == 0 {
		o.Policy.MinAge = retention.NoMinAge
	}
	if o.Delay == 0 {
		o.Delay = delay
	}
	o.Now = clock
	o.Logger = slog.New(slog.NewTextHandler(w.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.OnPurge = func(p watch.Purge) {
		if p.Trigger == watch.TriggerStart {
			w.starts <- p
			return
		}
		w.purges <- p
	}
	started := make(chan struct{})
	o.OnStart = func() { close(started) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- watch.Run(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		store.Close()
	})
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return w
}

// next waits for the next purge.
func (w *watcher) next(t *testing.T, within time.Duration) watch.Purge {
	t.Helper()
	select {
	case p := <-w.purges:
		return p
	case <-time.After(within):
		t.Fatalf("no purge within %s; log:\n%s", within, w.log)
	}
	return watch.Purge{}
}

// nextStart waits for the next purge at start.
func (w *watcher) nextStart(t *testing.T, within time.Duration) watch.Purge {
	t.Helper()
	select {
	case p := <-w.starts:
		return p
	case <-time.After(within):
		t.Fatalf("no purge at start within %s; log:\n%s", within, w.log)
	}
	return watch.Purge{}
}

// none checks that no purge happens for a while.
func (w *watcher) none(t *testing.T, wait time.Duration) {
	t.Helper()
	select {
	case p := <-w.purges:
		t.Fatalf("unexpected purge of %s (%s): %v; log:\n%s", p.Package, p.Trigger, p.Err, w.log)
	case <-time.After(wait):
	}
}

// fixture: core/redis (a loaded service, two old releases) and core/nginx
// (no spec, three), and an installer that can install a third of each
// as `hab pkg install` does.
func fixture(t *testing.T) (*storetest.Builder, *storetest.Installer) {
	b := storetest.New(t)
	b.Old(
		"core/redis/6.2.5/20200101000000", "core/redis/6.2.6/20200201000000",
		"core/nginx/1.19/20190101000000", "core/nginx/1.20/20200101000000", "core/nginx/1.21/20200201000000",
		"core/glibc/2.35/20200101000000",
	)
	b.Spec("redis", "core/redis")
	in := storetest.NewInstaller(b.Root, 1)
	in.Publish(
		storetest.Archive{Ident: "core/redis/7.0.1/20260101000000", Deps: []string{"core/glibc/2.35/20200101000000"}, Payload: []string{"bin/redis-server"}},
		storetest.Archive{Ident: "core/redis/7.0.2/20260201000000", Deps: []string{"core/zlib/1.3/20260101000000"}},
		storetest.Archive{Ident: "core/zlib/1.3/20260101000000"},
		storetest.Archive{Ident: "core/nginx/1.22/20260101000000", Payload: []string{"bin/nginx"}},
	)
	return b, in
}

// restart does what the Supervisor does as it starts a service (at
// `hab svc load`, or a restart into an update): a real process, and its
// PID file renamed into place (storetest.WritePIDFile: supervisor.rs
// create_pidfile), which is what makes watch purge the service.
func restart(t *testing.T, root, name string) {
	t.Helper()
	p := proctest.Start(t, proctest.Exec, proctest.Sleep(t))
	if _, err := storetest.WritePIDFile(root, name, p.PID()); err != nil {
		t.Fatal(err)
	}
}

func exists(b *storetest.Builder, ident string) bool {
	_, err := os.Lstat(b.PkgPath(ident))
	return err == nil
}

// installed checks which of the fixture's releases are still there.
func installed(t *testing.T, b *storetest.Builder, want map[string]bool) {
	t.Helper()
	for id, w := range want {
		if got := exists(b, id); got != w {
			t.Errorf("%s installed: %v, want %v", id, got, w)
		}
	}
}

// TestPurgeAfterUpdate: a new release of a loaded service, installed as
// Habitat installs it, is not purged until the Supervisor restarts the
// service into it (its PID file replaced), which leads to one purge of
// that package after the delay: its oldest release goes, and nothing else.
func TestPurgeAfterUpdate(t *testing.T) {
	b, in := fixture(t)
	w := start(t, b.Root, watch.Options{})
	installedAt := time.Now()
	if err := in.Install("core/redis/7.0.1/20260101000000"); err != nil {
		t.Fatal(err)
	}
	w.none(t, 3*delay) // installed, not started: the Supervisor purges as it starts the service
	restart(t, b.Root, "redis")
	p := w.next(t, 20*time.Second)
	if waited := time.Since(installedAt); waited < delay {
		t.Errorf("purged %s after the install, before the delay %s", waited, delay)
	}
	if p.Package.String() != "core/redis" || p.Trigger != watch.TriggerLoad || p.Err != nil {
		t.Fatalf("purge %s (%s): %v", p.Package, p.Trigger, p.Err)
	}
	if p.Result == nil || p.Result.Removed != 1 {
		t.Fatalf("result %+v, want 1 removed", p.Result)
	}
	installed(t, b, map[string]bool{
		"core/redis/6.2.5/20200101000000": false,
		"core/redis/6.2.6/20200201000000": true, "core/redis/7.0.1/20260101000000": true,
		"core/nginx/1.19/20190101000000": true, "core/nginx/1.20/20200101000000": true, "core/nginx/1.21/20200201000000": true,
		"core/glibc/2.35/20200101000000": true,
	})
	if d, ok := p.Plan.Decision(pkgstore.MustParseIdent("core/nginx/1.19/20190101000000")); !ok || d.Action != retention.Keep || d.Reasons[0].Code != retention.CodeOutsideOnly {
		t.Errorf("nginx's oldest: %+v, want kept outside the purge's package", d)
	}
	w.none(t, 3*delay) // the burst of the install's events made one purge
	if !strings.Contains(w.log.String(), `msg=purged package=core/redis trigger=load removed=1`) {
		t.Errorf("no log record of the purge:\n%s", w.log)
	}
}

// TestNoSpecUntouchedUnlessAll: a new release of a package no spec loads
// is left to the scheduled prunes, unless All.
func TestNoSpecUntouchedUnlessAll(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		b, in := fixture(t)
		w := start(t, b.Root, watch.Options{})
		if err := in.Install("core/nginx/1.22/20260101000000"); err != nil {
			t.Fatal(err)
		}
		w.none(t, 4*delay)
		installed(t, b, map[string]bool{"core/nginx/1.19/20190101000000": true, "core/nginx/1.20/20200101000000": true,
			"core/nginx/1.21/20200201000000": true, "core/nginx/1.22/20260101000000": true})
	})
	t.Run("all", func(t *testing.T) {
		b, in := fixture(t)
		w := start(t, b.Root, watch.Options{All: true})
		if err := in.Install("core/nginx/1.22/20260101000000"); err != nil {
			t.Fatal(err)
		}
		p := w.next(t, 20*time.Second)
		if p.Package.String() != "core/nginx" || p.Err != nil || p.Result.Removed != 2 {
			t.Fatalf("purge %s: %v %+v", p.Package, p.Err, p.Result)
		}
		installed(t, b, map[string]bool{"core/nginx/1.19/20190101000000": false, "core/nginx/1.20/20200101000000": false,
			"core/nginx/1.21/20200201000000": true, "core/nginx/1.22/20260101000000": true,
			"core/redis/6.2.5/20200101000000": true})
	})
}

// TestWaitsForInstallInProgress: while the new release's temp directory
// is still there (renamed, not yet cleaned up), or a dependency of it is
// being unpacked, the purge waits.
func TestWaitsForInstallInProgress(t *testing.T) {
	b, in := fixture(t)
	hold, resume := make(chan struct{}), make(chan struct{})
	in.At = func(p storetest.Point) error {
		if p.Step == storetest.StepRenamed && p.Top {
			close(hold)
			<-resume
		}
		return nil
	}
	// The clock runs 2h ahead: the temp directory is 2h "old" by it.
	w := start(t, b.Root, watch.Options{InstallWindow: 3 * time.Hour})
	errc := make(chan error, 1)
	go func() { errc <- in.Install("core/redis/7.0.2/20260201000000") }()
	<-hold
	restart(t, b.Root, "redis")
	w.none(t, 4*delay) // the release is in place, its temp directory not yet removed
	if !strings.Contains(w.log.String(), "an install is in progress") {
		t.Errorf("the log does not say why the purge waits:\n%s", w.log)
	}
	close(resume)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	p := w.next(t, 20*time.Second)
	if p.Package.String() != "core/redis" || p.Err != nil || p.Result.Removed != 1 {
		t.Fatalf("purge %s: %v %+v", p.Package, p.Err, p.Result)
	}
	installed(t, b, map[string]bool{"core/redis/6.2.5/20200101000000": false, "core/zlib/1.3/20260101000000": true})
}

// TestOnUnload: a spec removed and not back after the grace takes its
// package's releases with it; one loaded again within the grace keeps
// them.
func TestOnUnload(t *testing.T) {
	const grace = 1200 * time.Millisecond
	spec := func(b *storetest.Builder) string { return filepath.Join(b.Root, pkgstore.SpecsDir, "redis.spec") }
	t.Run("gone after the grace", func(t *testing.T) {
		b, _ := fixture(t)
		w := start(t, b.Root, watch.Options{OnUnload: true, UnloadGrace: grace})
		removed := time.Now()
		if err := os.Remove(spec(b)); err != nil {
			t.Fatal(err)
		}
		p := w.next(t, 20*time.Second)
		if time.Since(removed) < grace {
			t.Errorf("purged %s after the unload, within the grace %s", time.Since(removed), grace)
		}
		if p.Package.String() != "core/redis" || p.Trigger != watch.TriggerUnload || p.Err != nil || p.Result.Removed != 2 {
			t.Fatalf("purge %s (%s): %v %+v", p.Package, p.Trigger, p.Err, p.Result)
		}
		installed(t, b, map[string]bool{"core/redis/6.2.5/20200101000000": false, "core/redis/6.2.6/20200201000000": false,
			"core/nginx/1.20/20200101000000": true, "core/glibc/2.35/20200101000000": true})
	})
	t.Run("reloaded within the grace", func(t *testing.T) {
		b, _ := fixture(t)
		w := start(t, b.Root, watch.Options{OnUnload: true, UnloadGrace: grace})
		data, err := os.ReadFile(spec(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(spec(b)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(grace / 3)
		if err := os.WriteFile(spec(b), data, 0o644); err != nil {
			t.Fatal(err)
		}
		restart(t, b.Root, "redis")
		// Loading a service purges as the Supervisor does after loading
		// one: the newest 2 are all there are, so nothing goes.
		p := w.next(t, 20*time.Second)
		if p.Trigger != watch.TriggerLoad || p.Err != nil || p.Result.Removed != 0 {
			t.Fatalf("purge %s (%s): %v %+v", p.Package, p.Trigger, p.Err, p.Result)
		}
		w.none(t, 2*grace)
		installed(t, b, map[string]bool{"core/redis/6.2.5/20200101000000": true, "core/redis/6.2.6/20200201000000": true})
	})
}

// TestFallbackRescan: when inotify's watch limit is reached, Run says so
// and still purges after an update, finding it by a rescan every Delay.
func TestFallbackRescan(t *testing.T) {
	b, in := fixture(t)
	w := start(t, b.Root, watch.Options{MaxWatches: 3})
	if !strings.Contains(w.log.String(), "inotify limit reached") {
		t.Fatalf("the log does not say the limit was reached:\n%s", w.log)
	}
	if err := in.Install("core/redis/7.0.1/20260101000000"); err != nil {
		t.Fatal(err)
	}
	restart(t, b.Root, "redis")
	p := w.next(t, 20*time.Second)
	if p.Package.String() != "core/redis" || p.Err != nil || p.Result.Removed != 1 {
		t.Fatalf("purge %s: %v %+v", p.Package, p.Err, p.Result)
	}
	installed(t, b, map[string]bool{"core/redis/6.2.5/20200101000000": false, "core/nginx/1.20/20200101000000": true})
}

// TestNewPackageDirectories: a package installed for the first time
// (origin, name and version directories all new, and the service's own
// directory) is watched from then on: each start on a new release leads
// to a purge.
func TestNewPackageDirectories(t *testing.T) {
	b := storetest.New(t)
	b.Spec("app", "acme/app")
	in := storetest.NewInstaller(b.Root, 2)
	in.Publish(storetest.Archive{Ident: "acme/app/1.0/20260101000000"},
		storetest.Archive{Ident: "acme/app/1.1/20260102000000"},
		storetest.Archive{Ident: "acme/app/1.1/20260103000000"})
	w := start(t, b.Root, watch.Options{Policy: retention.Policy{KeepLatest: 1}})
	for i, id := range []string{"acme/app/1.0/20260101000000", "acme/app/1.1/20260102000000", "acme/app/1.1/20260103000000"} {
		if err := in.Install(id); err != nil {
			t.Fatal(err)
		}
		restart(t, b.Root, "app")
		p := w.next(t, 20*time.Second)
		if p.Err != nil || p.Result.Removed != min(i, 1) {
			t.Fatalf("after installing %s: %v %+v", id, p.Err, p.Result)
		}
	}
	installed(t, b, map[string]bool{"acme/app/1.0/20260101000000": false, "acme/app/1.1/20260102000000": false, "acme/app/1.1/20260103000000": true})
}
