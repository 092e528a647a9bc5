package retention_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestStudioBuildsDoNotHoldHostRemovals: on a build
// host, hab-studio bind-mounts the host's artifact cache into every
// studio (components/studio/bin/hab-studio-linux.sh: "Mount the
// `$ARTIFACT_PATH` under `/hab/cache/artifacts` in the Studio"), so each
// build's dependencies are fetched into the host's cache and installed in
// the studio's own store (FS_ROOT/hab/studios/NAME/hab/pkgs), never in the
// host's. Each such archive is fresh and its release not installed on
// the host, so every host run within the install window of a build
// removes nothing: with builds more often than the window, never. So an
// archive whose release is installed in a studio's store is the studio's
// install and holds no host removal; until it is (the studio's install
// still going on), it does.
func TestStudioBuildsDoNotHoldHostRemovals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		studio func(t *testing.T, root string) // lays out FS_ROOT/hab/studios
		remove bool
	}{
		// The studio's store holds what its build installed.
		{"installed in a studio", func(t *testing.T, root string) {
			storetest.At(t, filepath.Join(root, "hab", "studios", "build")).Add(storetest.Release{Ident: libIdent})
		}, true},
		// The studio's install of it is still going on, or it is the
		// host's own: removals wait.
		{"in no studio yet", func(t *testing.T, root string) {
			storetest.At(t, filepath.Join(root, "hab", "studios", "build")).Add(storetest.Release{Ident: depNew})
		}, false},
		// A symlinked studios directory is not followed.
		{"studios directory a symlink", func(t *testing.T, root string) {
			elsewhere := testtool.TempDir(t)
			storetest.At(t, filepath.Join(elsewhere, "build")).Add(storetest.Release{Ident: libIdent})
			if err := os.Symlink(elsewhere, filepath.Join(root, "hab", "studios")); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			oldPkg(b, depOld)
			oldPkg(b, depNew)
			tc.studio(t, b.Root)
			in := storetest.NewInstaller(b.Root, 7)
			if err := in.Cache(storetest.Archive{Ident: libIdent, Payload: []string{"lib/liblib.so"}}, 0); err != nil {
				t.Fatal(err)
			}
			p := planNow(t, b.Root, 0, pkgstore.Options{})
			if d, _ := p.Decision(pkgstore.MustParseIdent(depOld)); (d.Action == retention.Remove) != tc.remove {
				t.Errorf("%s %s %v (install wait: %q), want removed %v", d.Action, depOld, d.Reasons, p.InstallWait, tc.remove)
			}
		})
	}
}
