package retention_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestConcurrentUninstall: a release uninstalled between Apply's check and
// its hiding rename is already gone, not a failure.
func TestConcurrentUninstall(t *testing.T) {
	b := base(t)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	opts := fast
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, _ string) {
		if stage == "checked" && id.String() == redis2 {
			testtool.RemoveAll(b.PkgPath(redis2)) // hab pkg uninstall
		}
	})
	res := applyPlan(t, p, b.Root, opts)
	o, _ := outcome(res, redis2)
	if o.Status != retention.StatusGone || !hasReason(o.Reasons, retention.CodeGone, "") || res.Partial() {
		t.Fatalf("outcome %+v, partial %v", o, res.Partial())
	}
}
