package retention_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/retention"
)

// TestHabNeverRemovedUnlessAsked: Habitat's uninstall never removes a
// chef/hab release; neither does hab-gc unless self_keep_latest is set
// explicitly. chef/hab-sup and chef/hab-launcher keep the count rule.
func TestHabNeverRemovedUnlessAsked(t *testing.T) {
	b := storetest.New(t)
	for _, pkg := range []string{"chef/hab", "core/hab", "chef/hab-sup", "chef/hab-launcher"} {
		for _, v := range []string{"1.6.0/20200101000000", "1.6.1/20210101000000", "1.6.2/20220101000000"} {
			oldPkg(b, pkg+"/"+v)
		}
	}
	tests := []struct {
		name string
		pol  retention.Policy
		// kept releases per package, newest first
		hab, sup int
	}{
		{"unset", retention.Policy{KeepLatest: 1}, 3, 1},
		{"unset, keep 2", retention.Policy{KeepLatest: 2}, 3, 2},
		{"explicit 1", retention.Policy{KeepLatest: 2, SelfKeepLatest: 1}, 1, 1},
		{"explicit 2", retention.Policy{KeepLatest: 1, SelfKeepLatest: 2}, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan(t, b, tt.pol)
			for _, c := range []struct {
				pkg  string
				keep int
			}{{"chef/hab", tt.hab}, {"core/hab", tt.hab}, {"chef/hab-sup", tt.sup}, {"chef/hab-launcher", tt.sup}} {
				for i, v := range []string{"1.6.2/20220101000000", "1.6.1/20210101000000", "1.6.0/20200101000000"} {
					d := decision(t, p, c.pkg+"/"+v)
					want := retention.Remove
					if i < c.keep {
						want = retention.Keep
					}
					if d.Action != want {
						t.Errorf("%s/%s: %s, want %s: %v", c.pkg, v, d.Action, want, d.Reasons)
					}
					if want == retention.Keep && !hasCode(d, retention.CodeHabitat, "") {
						t.Errorf("%s/%s kept without %s: %v", c.pkg, v, retention.CodeHabitat, d.Reasons)
					}
					if want == retention.Keep && tt.pol.SelfKeepLatest == 0 && (c.pkg == "chef/hab" || c.pkg == "core/hab") &&
						!hasCode(d, retention.CodeHabitat, "Habitat never removes chef/hab") {
						t.Errorf("%s/%s: reason does not say Habitat never removes it: %v", c.pkg, v, d.Reasons)
					}
				}
			}
		})
	}
}
