//go:build unix

package binlink_test

import (
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestBinstubLeftAlone: a dangling Windows binstub (a .bat file naming a
// release that is gone, as `hab pkg uninstall` leaves one) is reported
// but never rewritten: it is no symlink, and `hab pkg binlink --force`
// writes binstubs.
func TestBinstubLeftAlone(t *testing.T) {
	b := storetest.New(t)
	release(b, redis2, "redis-server")
	b.Binstub("bin", "redis-server", `C:\hab\pkgs\`+strings.ReplaceAll(redis1, "/", `\`)+`\bin\redis-server.exe`, nil)
	before := snapshot(t, b.Root)
	store, inv := scan(t, b.Root)
	plan, err := binlink.NewPlan(store, inv, binlink.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Steps) != 1 || plan.Changes() != 0 || plan.Steps[0].Action != binlink.ActionLeave || !strings.Contains(plan.Steps[0].Reason, "binstub") {
		t.Fatalf("plan %+v; want the binstub left alone, saying why", plan.Steps)
	}
	if after := snapshot(t, b.Root); after != before {
		t.Fatalf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
