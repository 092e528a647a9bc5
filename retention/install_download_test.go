package retention_test

import (
	"os"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestRunWhileMissingDependencyDownloads: app's
// archive was cached days ago; Habitat reads its TDEPS, finds depOld
// installed ("Using") and lib missing, and downloads lib before it
// unpacks anything (install.rs install_package: get_cached_artifact for
// every missing dependency, then unpack_artifact for each). A download
// takes seconds to minutes: a .tmpXXXXXX in the cache (builder.rs
// download, AtomicWriter), then lib's fresh archive, which does not name
// depOld. No install directory exists yet. A whole run in that time must
// keep depOld, or app lands without it.
func TestRunWhileMissingDependencyDownloads(t *testing.T) {
	for _, step := range []storetest.Step{storetest.StepDownloading, storetest.StepFetched} {
		t.Run(string(step), func(t *testing.T) {
			b, in := installStore(t, 5, true, true, false)
			// lib is not in the cache: Habitat downloads it.
			if err := os.Remove(in.ArchivePath(libIdent)); err != nil {
				t.Fatal(err)
			}
			in.Publish(storetest.Archive{Ident: libIdent, Payload: []string{"lib/liblib.so"}})
			paused := false
			in.At = func(p storetest.Point) error {
				if paused || p.Ident != libIdent || p.Step != step {
					return nil
				}
				paused = true
				// app's archive looks as old as it is (a test cannot age
				// its ctime): out of sight while the run looks.
				putBack := moveAside(t, in.ArchivePath(appIdent))
				runGC(t, b.Root, 0, 10e6, nil)
				putBack()
				if !in.Installed(depOld) {
					t.Errorf("the run while lib was %s removed %s, which app's install found Using", step, depOld)
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
