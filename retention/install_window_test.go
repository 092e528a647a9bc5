package retention_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestInstallWindow: an archive whose release is not installed
// came into the cache just now, as a download renamed into place does,
// and no install directory exists yet (Habitat verifies it first). Within
// the plan's install window every removal waits; with a window it is
// older than, depOld goes, and Apply's re-scan judges with the plan's
// window, not the default hour (it kept depOld, as "installing", before).
func TestInstallWindow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		window  time.Duration
		removed bool
	}{
		{"default hour: removals wait", 0, false},
		{"a window the archive is older than", time.Nanosecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			oldPkg(b, depOld)
			oldPkg(b, depNew)
			in := storetest.NewInstaller(b.Root, 1)
			if err := in.Cache(storetest.Archive{Ident: libIdent, Payload: []string{"lib/liblib.so"}}, 0); err != nil {
				t.Fatal(err)
			}
			s := storetest.Open(t, b.Root)
			p, err := retention.PlanStore(context.Background(), s, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, time.Now(),
				pkgstore.Options{Target: "x86_64-linux", InstallWindow: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := p.Decision(pkgstore.MustParseIdent(depOld))
			if got := d.Action == retention.Remove; got != tc.removed {
				t.Fatalf("plan: %s %s %v, want removed %v", d.Action, depOld, d.Reasons, tc.removed)
			}
			if !tc.removed {
				i := slices.IndexFunc(d.Reasons, func(r retention.Reason) bool { return r.Code == retention.CodeInstalling })
				if i < 0 || !strings.Contains(d.Reasons[i].Text, "hab/cache/artifacts/core-lib-1.0-20261201000000-x86_64-linux.hart") {
					t.Fatalf("reasons %v: want installing, naming the fetched archive", d.Reasons)
				}
				return
			}
			res, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: retention.NoSettle})
			if err != nil {
				t.Fatal(err)
			}
			if res.Removed != 1 || in.Installed(depOld) {
				t.Fatalf("apply removed %d (%+v); %s installed %v", res.Removed, res.Outcomes, depOld, in.Installed(depOld))
			}
			requireWhole(t, b.Root)
		})
	}
}
