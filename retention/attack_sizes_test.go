package retention_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestPlanStoreSizesOnlyOfRemovals plans stores whose scan order is not
// Compare's (versions Habitat deems equal, 1.0 and 1.0.0, with releases
// interleaved), whose newest releases are for another target, hold
// install leftovers, hard links between releases or read the slow way:
// every release the plan removes has the size a walk finds, every other
// none (null in the JSON), whatever KeepLatest.
func TestPlanStoreSizesOnlyOfRemovals(t *testing.T) {
	b := storetest.New(t)
	big := strings.Repeat("x", 20000)
	for _, id := range []string{
		"core/tie/1.0.0/20200101000001", "core/tie/1.0/20200101000002", "core/tie/1.0.0/20200101000003",
		"core/tie/1.0/20200101000004", "core/tie/1.0.00/20200101000005",
	} {
		b.Add(storetest.Release{Ident: id, ModTime: old, Files: map[string]string{"bin/x": big}})
	}
	for i := 1; i <= 5; i++ {
		b.Add(storetest.Release{Ident: fmt.Sprintf("core/fo/1.%d/2020010100000%d", i, i), ModTime: old, Files: map[string]string{"bin/x": big}})
	}
	// The newest two for another target, and a leftover beside them.
	b.Add(storetest.Release{Ident: "core/fo/2.0/20210101000000", Target: "aarch64-linux", ModTime: old})
	b.Add(storetest.Release{Ident: "core/fo/2.1/20210101000000", Target: "aarch64-linux", ModTime: old})
	b.File("hab/pkgs/core/fo/1.5/"+pkgstore.InstallTempPrefix+"-x/DEPS", "")
	// One read the slow way (DEPS a symlink) among the old ones.
	d := "hab/pkgs/core/fo/1.2/20200101000002/"
	b.File(d+"D", "").Remove(d+"DEPS").Symlink("D", d+"DEPS")
	// A hard link between two releases.
	if err := os.Link(b.PkgPath("core/fo/1.1/20200101000001")+"/bin/x", b.PkgPath("core/fo/1.3/20200101000003")+"/bin/y"); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprintf("keep=%d", keep), func(t *testing.T) {
			s, err := pkgstore.Open(b.Root)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			p, err := retention.PlanStore(context.Background(), s, retention.Policy{KeepLatest: keep, MinAge: retention.NoMinAge, AllowDamaged: true}, now, pkgstore.Options{Target: "x86_64-linux"})
			if err != nil {
				t.Fatal(err)
			}
			removed := 0
			for _, d := range p.Decisions {
				want := int64(-1)
				if d.Action == retention.Remove {
					removed++
					want = s.Size(d.Release.Ident)
					if want <= 0 {
						t.Fatalf("%s: Size %d", d.Release.Ident, want)
					}
				}
				if d.Release.Size != want {
					t.Errorf("%s (%s): size %d, want %d", d.Release.Ident, d.Action, d.Release.Size, want)
				}
			}
			if removed == 0 {
				t.Error("nothing removed; the store is not what the test means")
			}
		})
	}
}
