package watch_test

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/watch"
)

const (
	mountApp1  = "core/app/1.0/20200101000000"
	mountApp2  = "core/app/2.0/20200201000000"
	mountLib1  = "core/lib/1.0/20200101000000"
	mountLib2  = "core/lib/2.0/20200201000000"
	mountOther = "core/other/1.0/20200101000000"
)

// mountFixture: core/app, a loaded service, two old releases, the older
// needing core/lib/1.0, the newer core/lib/2.0; an empty core/other; an
// installer of newer core/app releases (needing core/lib/2.0); and,
// elsewhere, a directory holding core/other/1.0, which needs
// core/lib/1.0, to be bind-mounted on hab/pkgs/core/other.
func mountFixture(t *testing.T) (b *storetest.Builder, in *storetest.Installer, other string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("bind mounts need root")
	}
	b = storetest.New(t)
	b.Old(mountLib1, mountLib2)
	b.Add(storetest.Release{Ident: mountApp1, Deps: []string{mountLib1}, TDeps: []string{mountLib1}, ModTime: old},
		storetest.Release{Ident: mountApp2, Deps: []string{mountLib2}, TDeps: []string{mountLib2}, ModTime: old})
	b.Spec("app", "core/app")
	b.Mkdir("hab/pkgs/core/other")
	elsewhere := storetest.New(t)
	elsewhere.Add(storetest.Release{Ident: mountOther, Deps: []string{mountLib1}, TDeps: []string{mountLib1}, ModTime: old})
	in = storetest.NewInstaller(b.Root, 1)
	in.Publish(storetest.Archive{Ident: "core/app/3.0/20260101000000", Deps: []string{mountLib2}},
		storetest.Archive{Ident: "core/app/4.0/20260201000000", Deps: []string{mountLib2}})
	return b, in, elsewhere.Path("hab/pkgs/core/other")
}

// bindOther bind-mounts src on the store's hab/pkgs/core/other, and
// unmounts it when the test ends (if the test has not).
func bindOther(t *testing.T, b *storetest.Builder, src string) (unmount func()) {
	t.Helper()
	dst := b.Path("hab/pkgs/core/other")
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	done := false
	unmount = func() {
		if !done {
			done = true
			if err := unix.Unmount(dst, unix.MNT_DETACH); err != nil {
				t.Errorf("unmount %s: %v", dst, err)
			}
		}
	}
	t.Cleanup(unmount)
	return unmount
}

// installPurge installs ident as Habitat does, restarts the service on
// it as the Supervisor does, and returns the purge of core/app it leads
// to.
func installPurge(t *testing.T, w *watcher, in *storetest.Installer, ident string) watch.Purge {
	t.Helper()
	if err := in.Install(ident); err != nil {
		t.Fatal(err)
	}
	restart(t, in.Root, "app")
	p := w.next(t, 20*time.Second)
	if p.Package.String() != "core/app" || p.Err != nil {
		t.Fatalf("purge of %s (%s): %v; log:\n%s", p.Package, p.Trigger, p.Err, w.log)
	}
	return p
}

// TestPurgeSeesAMountPlaced: a bind mount placed on hab/pkgs/core/other
// after watch's first plan raises no inotify event; the next purge still
// sees core/other/1.0 under it and keeps core/lib/1.0, which it needs,
// although the purge removes the core/app release that needed it too.
func TestPurgeSeesAMountPlaced(t *testing.T) {
	t.Parallel()
	b, in, other := mountFixture(t)
	w := start(t, b.Root, watch.Options{})
	bindOther(t, b, other)
	p := installPurge(t, w, in, "core/app/3.0/20260101000000")
	if _, ok := p.Plan.Decision(pkgstore.MustParseIdent(mountOther)); !ok {
		t.Errorf("the purge's plan does not list %s, under the mount", mountOther)
	}
	installed(t, b, map[string]bool{mountApp1: false, mountLib1: true, mountLib2: true, mountOther: true})
}

// TestPurgeSeesAMountRemoved: once the mount on hab/pkgs/core/other that
// watch's first plan saw is gone (no inotify event either), the next
// purge's plan no longer lists core/other/1.0, and core/lib/1.0, needed
// by nothing left, goes with the core/app release that needed it.
func TestPurgeSeesAMountRemoved(t *testing.T) {
	t.Parallel()
	b, in, other := mountFixture(t)
	unmount := bindOther(t, b, other)
	w := start(t, b.Root, watch.Options{})
	unmount()
	p := installPurge(t, w, in, "core/app/3.0/20260101000000")
	if d, ok := p.Plan.Decision(pkgstore.MustParseIdent(mountOther)); ok {
		t.Errorf("the purge's plan lists %s, no longer installed: %+v", mountOther, d)
	}
	installed(t, b, map[string]bool{mountApp1: false, mountLib1: false, mountLib2: true})
}
