package retention_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

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
	// A killed install's leftover (Habitat's nested layout), empty, two
	// hours old by the plan's clock: not an install in progress.
	b.Mkdir("hab/pkgs/core/fo/1.5/" + pkgstore.InstallTempPrefix + "-20200101000005abcdef")
	// One read the slow way (DEPS a symlink) among the old ones.
	d := "hab/pkgs/core/fo/1.2/20200101000002/"
	b.File(d+"D", "").Remove(d+"DEPS").Symlink("D", d+"DEPS")
	// A hard link between two releases.
	if err := os.Link(b.PkgPath("core/fo/1.1/20200101000001")+"/bin/x", b.PkgPath("core/fo/1.3/20200101000003")+"/bin/y"); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprintf("keep=%d", keep), func(t *testing.T) {
			s, p := openPlan(t, b.Root, retention.Policy{KeepLatest: keep, MinAge: retention.NoMinAge, AllowDamaged: true}, time.Now().Add(2*time.Hour), pkgstore.Options{Target: "x86_64-linux"})
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

// TestPlanStoreCancelled: a cancel during the scan or once planning has
// begun (before the removals are measured) makes PlanStore fail with the
// context's error, never return a plan whose removals lack sizes, and
// leaves no scan or measuring goroutine behind.
func TestPlanStoreCancelled(t *testing.T) {
	b := storetest.New(t)
	for i := range 30 {
		for v := 1; v <= 3; v++ {
			oldPkg(b, fmt.Sprintf("core/c%02d/1.%d/20200101000000", i, v))
		}
	}
	for _, at := range []string{"scan", "plan"} {
		t.Run(at, func(t *testing.T) {
			before := runtime.NumGoroutine()
			s := storetest.Open(t, b.Root)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := pkgstore.Options{Target: "x86_64-linux", Workers: 2, OnPhase: func(e pkgstore.PhaseEvent) {
				if (at == "scan" && e.Phase == retention.PhaseScan && e.Done == 3) || (at == "plan" && e.Phase == retention.PhasePlan) {
					cancel()
				}
			}}
			p, err := retention.PlanStore(ctx, s, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, now, opts)
			if !errors.Is(err, context.Canceled) || p != nil {
				t.Fatalf("PlanStore: plan %v, error %v; want context.Canceled", p != nil, err)
			}
			for range 100 {
				if runtime.NumGoroutine() <= before {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines after, %d before", n, before)
			}
		})
	}
}
