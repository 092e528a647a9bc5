//go:build linux

package retention_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// hostApp is the package a Studio build installed and the host installs
// next from the shared cache: it needs depOld.
const hostApp = "core/app/2.0/20261201000000"

// studioBuiltHostApp is a store of depOld and depNew, old, and a Studio's
// store (hab/studios/x) in which hostApp, needing depOld, is installed; its
// archive is fresh in the host's cache, which the Studio shares.
func studioBuiltHostApp(t *testing.T) (*storetest.Builder, *storetest.Installer) {
	t.Helper()
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	storetest.At(t, filepath.Join(b.Root, "hab", "studios", "x")).Add(storetest.Release{Ident: hostApp, Deps: []string{depOld}})
	in := storetest.NewInstaller(b.Root, 31)
	if err := in.Cache(storetest.Archive{Ident: hostApp, Deps: []string{depOld}, Payload: []string{"bin/app"}}, 0); err != nil {
		t.Fatal(err)
	}
	return b, in
}

// TestHostInstallOfStudioArchiveWaits: a Studio build
// installed hostApp (needing depOld) in its own store, its archive fresh
// in the host's cache, which the Studio shares; so the fresh archive holds
// no host removal (TestStudioBuildsDoNotHoldHostRemovals). The host then
// installs hostApp too: Habitat finds the archive cached, reads and
// verifies it, and says "Using" for depOld, which no file of the store
// shows yet; while it reads the archive it holds it open
// (components/common/src/command/package/install.rs get_cached_artifact:
// PackageArchive::new, then artifact::verify, each a File::open of it),
// as the process here does. The process holding the archive open is that install: the
// plan keeps the archive's release's TDEPS and removals wait. Without it,
// the run goes ahead as before.
func TestHostInstallOfStudioArchiveWaits(t *testing.T) {
	for _, installing := range []bool{true, false} {
		t.Run(map[bool]string{true: "host install holds the archive open", false: "no process"}[installing], func(t *testing.T) {
			b, in := studioBuiltHostApp(t)
			if installing {
				proctest.Start(t, proctest.Open, in.ArchivePath(hostApp))
			}
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
			_, p := openPlan(t, b.Root, pol, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
			d, _ := p.Decision(pkgstore.MustParseIdent(depOld))
			if kept := d.Action == retention.Keep; kept != installing {
				t.Fatalf("%s %s %v (install wait: %q), want kept %v", d.Action, depOld, d.Reasons, p.InstallWait, installing)
			}
			if !installing {
				return
			}
			if p.InstallWait == "" || len(p.Removals()) != 0 {
				t.Errorf("removals %d, install wait %q: want every removal to wait", len(p.Removals()), p.InstallWait)
			}
			needed := false
			for _, r := range d.Reasons {
				needed = needed || r.Code == retention.CodeInstalling && strings.Contains(r.Text, "needed by") && strings.Contains(r.Text, hostApp)
			}
			if !needed {
				t.Errorf("%s kept for %v, want: needed by the install of %s", depOld, d.Reasons, hostApp)
			}
			if !strings.Contains(p.InstallWait, "open") {
				t.Errorf("install wait %q does not say a process holds the archive open", p.InstallWait)
			}
			t.Log(p.InstallWait)
		})
	}
	// The host's install starts after the plan: Apply's own look at the
	// processes (before it hides anything, and its last check) keeps it.
	for _, phase := range []retention.Phase{retention.PhaseHide, retention.PhaseSettle} {
		t.Run("archive opened before "+string(phase), func(t *testing.T) {
			b, in := studioBuiltHostApp(t)
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
			s, p := openPlan(t, b.Root, pol, time.Now(), pkgstore.Options{Target: "x86_64-linux"})
			if d, _ := p.Decision(pkgstore.MustParseIdent(depOld)); d.Action != retention.Remove {
				t.Fatalf("plan: %s %s %v, want remove", d.Action, depOld, d.Reasons)
			}
			opened := false
			res, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: 50 * time.Millisecond, OnPhase: func(e retention.PhaseEvent) {
				if e.Phase == phase && !opened {
					opened = true
					proctest.Start(t, proctest.Open, in.ArchivePath(hostApp))
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(b.PkgPath(depOld)); err != nil {
				t.Fatalf("%s removed (opened %v, install wait %q): %v", depOld, opened, res.InstallWait, err)
			}
			if res.InstallWait == "" {
				t.Errorf("Apply kept %s without saying removals wait", depOld)
			}
		})
	}
}
