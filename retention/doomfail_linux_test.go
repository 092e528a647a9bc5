package retention_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestDoomFailureKeepsWhatItNeeds: a release whose doomed rename fails
// (here its VERSION directory made immutable once it is hidden: rename
// refuses with EPERM, as root too) stays hidden under its pending name,
// which the next run puts back if something needs it then. What it needs
// among the hidden must not be deleted meanwhile: a release still pending
// never needs a deleted or doomed one (docs/safety.md). core/p0/1 needs
// core/p1/1 needs core/p2/1; p0's rename fails; p1 and p2 must come back.
// Then, with a service loaded on core/p0/1, the next run puts it back
// with everything it needs.
func TestDoomFailureKeepsWhatItNeeds(t *testing.T) {
	const p0, p1, p2 = "core/p0/1/20200101000000", "core/p1/1/20200101000000", "core/p2/1/20200101000000"
	b := storetest.New(t)
	putBackChain(t, b.Root)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	opts := retention.ApplyOptions{Settle: -1}
	var vdir string
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, name string) {
		if stage == "deleting" && id.String() == p0 {
			vdir = filepath.Join(b.Root, "hab", "pkgs", filepath.FromSlash(filepath.Dir(name)))
			if out, err := exec.Command("chattr", "+i", vdir).CombinedOutput(); err != nil {
				t.Skipf("cannot make a directory immutable here (chattr +i needs root and a file system with attributes): %v %s", err, out)
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", vdir).Run() })
		}
	})
	res, err := p.Apply(context.Background(), storetest.Open(t, b.Root), opts)
	if vdir == "" {
		t.Fatal("the hook never ran")
	}
	if out, err := exec.Command("chattr", "-i", vdir).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i: %v %s", err, out)
	}
	if err != nil {
		t.Fatal(err)
	}
	countOutcomes(t, p, res)
	if o, _ := outcome(res, p0); o.Status != retention.StatusFailed {
		t.Errorf("%s: %s %v %v; want failed (it could not be doomed)", p0, o.Status, o.Reasons, o.Err)
	}
	for _, id := range []string{p1, p2} {
		if o, _ := outcome(res, id); o.Status != retention.StatusKept || !hasReason(o.Reasons, retention.CodeDependency, "") {
			t.Errorf("%s, which %s (still hidden) needs: %s %v %v; want put back", id, p0, o.Status, o.Reasons, o.Err)
		}
	}
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Debris) != 1 {
		t.Errorf("left hidden: %v; want only %s, pending", inv.Debris, p0)
	}
	storetest.At(t, b.Root).Spec("p0", p0)
	res = applyPlan(t, planAt(t, b.Root, retention.Policy{KeepLatest: 1}), b.Root, fast)
	if inv, err = pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"}); err != nil {
		t.Fatal(err)
	}
	for _, pr := range inv.Problems {
		t.Errorf("after the next run (leftovers %+v): %s", res.Leftovers, pr)
	}
	got, _ := listed(t, b.Root)
	for _, id := range []string{p0, p1, p2} {
		if _, ok := got[id]; !ok {
			t.Errorf("%s is not listed after the next run", id)
		}
	}
}
