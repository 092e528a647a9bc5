package retention_test

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestRevalidationInstallWaitReported: an archive of
// a release that is not installed comes into the cache after the plan,
// before Apply re-scans under the lock: Apply keeps every release, and the
// run's report says why in summary.install_wait (the text summary's
// "Every release is kept this time"), as it does when the plan saw it.
func TestRevalidationInstallWaitReported(t *testing.T) {
	b := storetest.New(t)
	oldPkg(b, depOld)
	oldPkg(b, depNew)
	s := storetest.Open(t, b.Root)
	p, err := retention.PlanStore(context.Background(), s, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, time.Now(),
		pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	if p.InstallWait != "" {
		t.Fatalf("the plan waits already: %s", p.InstallWait)
	}
	in := storetest.NewInstaller(b.Root, 3)
	if err := in.Cache(storetest.Archive{Ident: libIdent, Payload: []string{"lib/liblib.so"}}, 0); err != nil {
		t.Fatal(err)
	}
	res, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: retention.NoSettle})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 0 || !in.Installed(depOld) {
		t.Fatalf("removed %d while an archive waits to be installed", res.Removed)
	}
	if w := p.Report(res).Summary.InstallWait; w == "" {
		t.Errorf("the report does not say why nothing was removed: %+v", res.Outcomes)
	}
}
