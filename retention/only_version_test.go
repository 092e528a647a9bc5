package retention_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestOnlyVersion: Only core/redis/6.2 limits removals to that version's
// releases and keeps the newest KeepLatest of them, as
// `hab pkg uninstall --keep-latest N core/redis/6.2` does.
func TestOnlyVersion(t *testing.T) {
	b := storetest.New(t)
	oldPkg(b, "core/lib/1/20200101000000")
	oldPkg(b, "core/lib/2/20210101000000")
	oldPkg(b, "core/redis/5.0/20190101000000")
	oldPkg(b, "core/redis/6.2/20200101000000", "core/lib/1/20200101000000")
	oldPkg(b, "core/redis/6.2/20200201000000")
	oldPkg(b, "core/redis/6.2/20200301000000")
	oldPkg(b, "core/redis/7.0/20210101000000")
	pol := retention.Policy{KeepLatest: 1, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/redis/6.2")}}
	if err := pol.Validate(); err != nil {
		t.Fatalf("Validate refuses origin/name/version: %v", err)
	}
	p := plan(t, b, pol)
	for _, c := range []struct {
		ident  string
		action retention.Action
		code   retention.Code
		says   string
	}{
		{"core/redis/6.2/20200101000000", retention.Remove, retention.CodeOld, ""},
		{"core/redis/6.2/20200201000000", retention.Remove, retention.CodeOld, ""},
		{"core/redis/6.2/20200301000000", retention.Keep, retention.CodeLatest, "newest release of core/redis/6.2 (1st of 1 kept)"},
		{"core/redis/7.0/20210101000000", retention.Keep, retention.CodeLatest, "core/redis"},
		{"core/redis/5.0/20190101000000", retention.Keep, retention.CodeOutsideOnly, ""},
		{"core/lib/1/20200101000000", retention.Remove, retention.CodeFreed, "core/redis/6.2"}, // only a removed 6.2 release needed it
		{"core/lib/2/20210101000000", retention.Keep, retention.CodeLatest, ""},
	} {
		d := decision(t, p, c.ident)
		if d.Action != c.action || !hasCode(d, c.code, c.says) {
			t.Errorf("%s: %s %v, want %s with %s saying %q", c.ident, d.Action, d.Reasons, c.action, c.code, c.says)
		}
	}
	for _, bad := range []string{"core/redis/6.2/20200101000000"} {
		if err := (retention.Policy{KeepLatest: 1, Only: []pkgstore.Ident{pkgstore.MustParseIdent(bad)}}).Validate(); err == nil {
			t.Errorf("Validate accepts only %s (a release)", bad)
		}
	}
}
