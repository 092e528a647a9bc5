package retention_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

// holdLease writes a lease file as a caller about to install would, and
// has another process (flock(1)) hold its lock: the lease lives as long
// as that process.
func holdLease(t *testing.T, fsRoot, content string) *exec.Cmd {
	t.Helper()
	testtool.Need(t, "flock", "util-linux")
	dir := filepath.Join(fsRoot, "hab/sup/default/hab-gc/leases")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "install-test.lease")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	// -o: the lock is not passed on to sleep, so killing flock ends it.
	cmd := exec.Command("flock", "-o", file, "sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		held := lockedElsewhere(t, f)
		f.Close()
		if held && execed(cmd.Process.Pid, "sleep") {
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("flock(1) did not take the lease's lock")
		}
	}
}

// execed reports whether pid's child runs name: flock(1) takes the lock,
// then forks the command, whose copy of the descriptor holds the lock too
// until -o closes it just before its exec; killing flock before then
// would leave the lease held.
func execed(pid int, name string) bool {
	kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, kid := range strings.Fields(string(kids)) {
		if comm, _ := os.ReadFile("/proc/" + kid + "/comm"); strings.TrimSpace(string(comm)) == name {
			return true
		}
	}
	return false
}

func planLeased(t *testing.T, root string) *retention.Plan {
	t.Helper()
	// Leases only: on a machine where /proc does not show every process,
	// reading processes adds write-lease probes, which are runroots'.
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, RuntimeRoots: runroots.ModeOff}
	_, p := openPlan(t, root, pol, now, pkgstore.Options{Target: "x86_64-linux"})
	return p
}

// A lease held on a release keeps it (code leased), in
// every plan and Apply; when its holder dies, the lease dies with it.
func TestLeaseKeepsUntilItsHolderDies(t *testing.T) {
	b := storetest.New(t)
	oldPkg(b, "core/openssl/1.0/20200101000000")
	oldPkg(b, "core/openssl/1.1/20210101000000")
	oldPkg(b, "core/zlib/1.0/20200101000000")
	oldPkg(b, "core/zlib/1.1/20210101000000")
	holder := holdLease(t, b.Root, "# an install about to use them\ncore/openssl/1.0/20200101000000\ncore/zlib\n")

	p := planLeased(t, b.Root)
	for _, id := range []string{"core/openssl/1.0/20200101000000", "core/zlib/1.0/20200101000000"} {
		if d := decision(t, p, id); d.Action != retention.Keep || !hasCode(d, "leased", "") {
			t.Fatalf("%s under a lease: %s %v, want keep (leased)", id, d.Action, d.Reasons)
		}
	}
	// Apply asks again: still leased, still there.
	res := applyPlan(t, p, b.Root, fast)
	if res.Removed != 0 || !exists(b.PkgPath("core/openssl/1.0/20200101000000")) {
		t.Fatalf("a leased release was removed: %+v", res.Outcomes)
	}

	holder.Process.Kill() // kill -9: the kernel releases the lock
	holder.Wait()
	p = planLeased(t, b.Root)
	if d := decision(t, p, "core/openssl/1.0/20200101000000"); d.Action != retention.Remove {
		t.Fatalf("after its holder died: %s %v, want remove", d.Action, d.Reasons)
	}
	res = applyPlan(t, p, b.Root, fast)
	if res.Removed != 2 {
		t.Fatalf("removed %d, want 2: %+v", res.Removed, res.Outcomes)
	}
}

// TestLeaseRestoresPendingDebris: a release an interrupted Apply hid
// before its final check (a pending directory) is put back when a live
// lease names its package by a partial ident (pendingIdent), and removed,
// as any other removal, once no lease names it.
func TestLeaseRestoresPendingDebris(t *testing.T) {
	b := storetest.New(t)
	oldPkg(b, "core/zlib/1.0/20200101000000")
	oldPkg(b, "core/zlib/1.1/20210101000000")
	orig := b.PkgPath("core/zlib/1.0/20200101000000")
	hidden := filepath.Join(filepath.Dir(orig), pkgstore.DebrisPrefix+"pending-20200101000000-ABCDEFGHIJ")
	if err := os.Rename(orig, hidden); err != nil {
		t.Fatal(err)
	}
	holder := holdLease(t, b.Root, "core/zlib\n")
	res := applyPlan(t, planLeased(t, b.Root), b.Root, fast)
	if len(res.Leftovers) != 1 || res.Leftovers[0].Status != retention.StatusKept || !exists(orig) {
		t.Fatalf("under a lease on core/zlib: leftovers %+v; want the pending release put back", res.Leftovers)
	}
	holder.Process.Kill()
	holder.Wait()
	if err := os.Rename(orig, hidden); err != nil {
		t.Fatal(err)
	}
	p := planLeased(t, b.Root)
	res = applyPlan(t, p, b.Root, fast)
	if o, ok := outcome(res, "core/zlib/1.0/20200101000000"); !ok || o.Status != retention.StatusRemoved || res.Removed != 1 || exists(hidden) || exists(orig) {
		t.Fatalf("with no lease: outcomes %+v, leftovers %+v (the plan: %v); want the pending release removed, as any other",
			res.Outcomes, res.Leftovers, decision(t, p, "core/zlib/1.0/20200101000000").Reasons)
	}
}
