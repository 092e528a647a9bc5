package retention_test

import (
	"os"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestGoneIsNotKept: a planned removal that is no longer installed when
// Apply reaches it (uninstalled before Apply, before its check, or between
// its check and its hiding rename) was not kept by Apply: Result.Kept does
// not count it, the report's kept_at_revalidation neither; it has a status
// of its own (StatusGone, counted in Result.Gone) and CodeGone.
func TestGoneIsNotKept(t *testing.T) {
	for _, tc := range []struct {
		name string
		// before runs before Apply; hook, when set, during it.
		before func(b string)
		hook   func(root string) func(stage string, id pkgstore.Ident, hidden string)
	}{
		{name: "before Apply", before: func(pkgPath string) { testtool.RemoveAll(pkgPath) }},
		{name: "before its check", hook: func(pkgPath string) func(string, pkgstore.Ident, string) {
			return func(stage string, id pkgstore.Ident, _ string) {
				if stage == "hidden" && id.String() != redis2 {
					testtool.RemoveAll(pkgPath) // still listed at the rescan, gone when Apply looks
				}
			}
		}},
		{name: "between check and rename", hook: func(pkgPath string) func(string, pkgstore.Ident, string) {
			return func(stage string, id pkgstore.Ident, _ string) {
				if stage == "checked" && id.String() == redis2 {
					testtool.RemoveAll(pkgPath)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base(t)
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			if d, _ := p.Decision(pkgstore.MustParseIdent(redis2)); d.Action != retention.Remove {
				t.Fatalf("the plan keeps %s: %+v", redis2, d)
			}
			opts := fast
			if tc.before != nil {
				tc.before(b.PkgPath(redis2))
			}
			if tc.hook != nil {
				retention.SetHook(&opts, tc.hook(b.PkgPath(redis2)))
			}
			res := applyPlan(t, p, b.Root, opts)
			o, _ := outcome(res, redis2)
			if o.Status != retention.StatusGone || !hasReason(o.Reasons, retention.CodeGone, "no longer installed") {
				t.Errorf("outcome of %s: %+v, want StatusGone with %s", redis2, o, retention.CodeGone)
			}
			if res.Kept != 0 || res.Gone != 1 || res.Partial() {
				t.Errorf("Kept %d, Gone %d, Failed %d; want 0, 1, 0", res.Kept, res.Gone, res.Failed)
			}
			if o.Err != nil {
				t.Errorf("Err %v for a release already gone", o.Err)
			}
			sum := p.Report(res).Summary
			if sum.KeptAtRun != 0 || sum.Gone != 1 || sum.Removed != res.Removed {
				t.Errorf("report summary %+v", sum)
			}
			if _, err := os.Lstat(b.PkgPath(redis2)); !os.IsNotExist(err) {
				t.Errorf("%s is back: %v", redis2, err)
			}
		})
	}
}
