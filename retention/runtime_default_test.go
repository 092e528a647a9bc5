//go:build linux

package retention_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/proctest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

// TestZeroPolicyKeepsRunningRelease: a policy that leaves RuntimeRoots and
// RootFinders unset keeps a release a running process executes, in the
// plan and in Apply; only runroots.ModeOff lets it go.
func TestZeroPolicyKeepsRunningRelease(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode runroots.Mode
		want retention.Action
	}{
		{runroots.ModeOn, retention.Keep},
		{runroots.ModeBestEffort, retention.Keep},
		{runroots.ModeOff, retention.Remove},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			t.Parallel()
			b := storetest.New(t)
			oldPkg(b, depOld)
			oldPkg(b, depNew)
			bin := filepath.Join(b.PkgPath(depOld), "bin", "sleep")
			proctest.CopySleep(t, bin)
			proctest.Start(t, proctest.Exec, bin)
			pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, RuntimeRoots: tc.mode}
			s, p := openPlan(t, b.Root, pol, time.Now(), pkgstore.Options{})
			if d, _ := p.Decision(pkgstore.MustParseIdent(depOld)); d.Action != tc.want {
				t.Errorf("plan: %s %s %v, want %s", d.Action, depOld, d.Reasons, tc.want)
			}
			if _, err := p.Apply(context.Background(), s, retention.ApplyOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(bin); (err == nil) != (tc.want == retention.Keep) {
				t.Errorf("%s after Apply: %v, want it there: %v", depOld, err, tc.want == retention.Keep)
			}
		})
	}
}
