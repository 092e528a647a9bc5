package retention_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// The example Policy.Only's doc gives. A dependency only
// the removed releases needed is freed unless it is among the newest
// KeepLatest of its own package: a package with one release is kept.
func TestOnlyFreesNoSoleRelease(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lib2     bool
		lib1Kept bool
	}{{"sole release kept", false, true}, {"older release freed", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			oldPkg(b, "core/lib/1/1")
			if tc.lib2 {
				oldPkg(b, "core/lib/2/2")
			}
			oldPkg(b, "core/app/1/1", "core/lib/1/1")
			oldPkg(b, "core/app/2/2")
			p, err := planStore(t, b.Root, retention.Policy{KeepLatest: 1, Only: []pkgstore.Ident{pkgstore.MustParseIdent("core/app")}})
			if err != nil {
				t.Fatal(err)
			}
			if d := decision(t, p, "core/app/1/1"); d.Action != retention.Remove {
				t.Fatalf("core/app/1/1: %+v", d)
			}
			d := decision(t, p, "core/lib/1/1")
			if (d.Action == retention.Keep) != tc.lib1Kept {
				t.Errorf("core/lib/1/1: %+v, want kept %v", d, tc.lib1Kept)
			}
			if !tc.lib1Kept && !hasCode(d, retention.CodeFreed, "") {
				t.Errorf("core/lib/1/1 removed without freed-by-only: %+v", d)
			}
		})
	}
}
