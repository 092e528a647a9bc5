package retention_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// putBackChain is core/p0 needing core/p1 needing core/p2, two releases
// each: with keep-latest 1 the old ones go, hidden and doomed p0 first.
func putBackChain(t *testing.T, root string) {
	b := storetest.At(t, root)
	for _, v := range []string{"1/20200101000000", "2/20210101000000"} {
		oldPkg(b, "core/p2/"+v)
		oldPkg(b, "core/p1/"+v, "core/p2/"+v)
		oldPkg(b, "core/p0/"+v, "core/p1/"+v)
	}
}

// TestHelperCancelledPutBackProcess is not a test: TestKillWhilePuttingBackDoomed
// runs the test binary with HABGC_PUTBACK_ROOT set, to apply a plan that
// is cancelled once every release is doomed, in a process that kills
// itself at the HABGC_PUTBACK_KILL-th outcome.
func TestHelperCancelledPutBackProcess(t *testing.T) {
	root := os.Getenv("HABGC_PUTBACK_ROOT")
	if root == "" {
		return // run only as TestKillWhilePuttingBackDoomed's child
	}
	killAt, err := strconv.Atoi(os.Getenv("HABGC_PUTBACK_KILL"))
	if err != nil {
		t.Fatal(err)
	}
	p := planAt(t, root, retention.Policy{KeepLatest: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := retention.ApplyOptions{Settle: -1}
	doomed := 0
	retention.SetHook(&opts, func(stage string, _ pkgstore.Ident, _ string) {
		if stage == "doomed" {
			if doomed++; doomed == len(p.Removals()) {
				cancel()
			}
		}
	})
	retention.SetProgress(&opts, func(e retention.Event) {
		if e.Done == killAt {
			self, _ := os.FindProcess(os.Getpid())
			self.Kill() // kill -9, as an operator's second Ctrl-C or the watchdog ends it
			time.Sleep(time.Minute)
		}
	})
	s := storetest.Open(t, root)
	p.Apply(ctx, s, opts)
	t.Fatal("not killed")
}

// TestKillWhilePuttingBackDoomed: a run cancelled once its releases are
// doomed puts each one back; killed meanwhile (a second signal ends
// hab-gc at once), it must leave no listed release needing one still
// doomed, which the next run deletes whatever needs it: the releases
// come back dependencies first. Killed after each outcome in turn, the
// store then shows no listed release without its dependencies, and a
// next run, with a service now loaded on core/p0's old release, keeps
// that release and all it needs.
func TestKillWhilePuttingBackDoomed(t *testing.T) {
	template := testtool.TempDir(t)
	putBackChain(t, template)
	n := len(planAt(t, template, retention.Policy{KeepLatest: 1}).Removals())
	if n != 3 {
		t.Fatalf("plan removes %d, want 3", n)
	}
	for k := 1; k <= n; k++ {
		t.Run(fmt.Sprint("killed at outcome ", k), func(t *testing.T) {
			root := testtool.TempDir(t)
			copyTree(t, template, root)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCancelledPutBackProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "HABGC_PUTBACK_ROOT="+root, "HABGC_PUTBACK_KILL="+strconv.Itoa(k))
			out, err := cmd.CombinedOutput()
			if err == nil || cmd.ProcessState.Success() {
				t.Fatalf("the helper was not killed: %v\n%s", err, out)
			}
			inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux"})
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range inv.Problems {
				if pr.Kind == pkgstore.ProblemDepMissing { // hab-gc's leftovers may be reported too
					t.Errorf("after the kill: %s", pr)
				}
			}
			storetest.At(t, root).Spec("p0", "core/p0/1/20200101000000")
			p := planAt(t, root, retention.Policy{KeepLatest: 1})
			applyPlan(t, p, root, fast)
			if inv, err = pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux"}); err != nil {
				t.Fatal(err)
			}
			for _, pr := range inv.Problems {
				t.Errorf("after the next run: %s", pr)
			}
			got, other := listed(t, root)
			for _, id := range []string{"core/p0/1/20200101000000", "core/p1/1/20200101000000", "core/p2/1/20200101000000"} {
				if _, ok := got[id]; !ok {
					t.Errorf("%s, which the loaded service needs, is not listed after the next run", id)
				}
			}
			if len(other) != 0 {
				t.Errorf("left after the next run: %v", other)
			}
		})
	}
}
