//go:build unix

package binlink_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestRepairRuns: Repair is hab-gc binlinks whole: a dry run plans and
// changes nothing; a real run relinks under the exclusive lock; a store
// with a blocking problem is refused with a DamagedError and nothing
// changes; a lock held elsewhere is waited for no longer than asked.
func TestRepairRuns(t *testing.T) {
	opts := pkgstore.Options{BinlinkDirs: []string{"bin"}}
	want1 := "/hab/pkgs/" + redis1 + "/bin/redis-server"
	want2 := "/hab/pkgs/" + redis2 + "/bin/redis-server"
	setup := func(t *testing.T) (*storetest.Builder, *pkgstore.Store) {
		b := storetest.New(t)
		release(b, redis2, "redis-server")
		b.Binlink("bin", "redis-server", want1)
		return b, storetest.Open(t, b.Root)
	}
	t.Run("dry run", func(t *testing.T) {
		b, store := setup(t)
		plan, res, err := binlink.Repair(ctx, store, binlink.RepairOptions{DryRun: true, Scan: opts})
		if err != nil || res != nil || plan == nil || plan.Changes() != 1 {
			t.Fatalf("plan %+v, result %+v, %v; want one change planned, no result", plan, res, err)
		}
		if got := readlink(t, b.Path("bin/redis-server")); got != want1 {
			t.Errorf("a dry run changed the link to %s", got)
		}
	})
	t.Run("real run", func(t *testing.T) {
		b, store := setup(t)
		plan, res, err := binlink.Repair(ctx, store, binlink.RepairOptions{Scan: opts})
		if err != nil || res == nil || res.Partial() || plan.Changes() != 1 {
			t.Fatalf("plan %+v, result %+v, %v; want one change done", plan, res, err)
		}
		if got := readlink(t, b.Path("bin/redis-server")); got != want2 {
			t.Errorf("link now %s, want %s", got, want2)
		}
	})
	t.Run("blocking problem", func(t *testing.T) {
		b, store := setup(t)
		b.Add(storetest.Release{Ident: "core/x/1/2"})
		b.File("hab/pkgs/core/x/1/2/DEPS", "not an ident\n") // bad-deps: blocking
		for _, dry := range []bool{true, false} {
			plan, res, err := binlink.Repair(ctx, store, binlink.RepairOptions{DryRun: dry, Scan: opts})
			var de *retention.DamagedError
			if !errors.As(err, &de) || !errors.Is(err, retention.ErrDamaged) || len(de.Problems) == 0 || plan != nil || res != nil {
				t.Fatalf("dry %v: plan %+v, result %+v, %v; want a DamagedError and nothing else", dry, plan, res, err)
			}
		}
		if got := readlink(t, b.Path("bin/redis-server")); got != want1 {
			t.Errorf("a refused run changed the link to %s", got)
		}
	})
	t.Run("lock held", func(t *testing.T) {
		b, store := setup(t)
		other := storetest.Open(t, b.Root)
		unlock, err := other.Lock(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		for _, dry := range []bool{true, false} {
			plan, res, err := binlink.Repair(ctx, store, binlink.RepairOptions{DryRun: dry, Scan: opts, LockTimeout: retention.NoLockWait})
			if !errors.Is(err, pkgstore.ErrLocked) || plan != nil || res != nil {
				t.Fatalf("dry %v: plan %+v, result %+v, %v; want ErrLocked", dry, plan, res, err)
			}
		}
		if got := readlink(t, b.Path("bin/redis-server")); got != want1 {
			t.Errorf("the link changed to %s under another's lock", got)
		}
	})
	t.Run("bad lock timeout", func(t *testing.T) {
		b, store := setup(t)
		plan, res, err := binlink.Repair(ctx, store, binlink.RepairOptions{Scan: opts, LockTimeout: -2 * time.Second})
		if !errors.Is(err, retention.ErrInvalidOptions) || plan != nil || res != nil {
			t.Fatalf("plan %+v, result %+v, %v; want ErrInvalidOptions", plan, res, err)
		}
		if got := readlink(t, b.Path("bin/redis-server")); got != want1 {
			t.Errorf("a refused run changed the link to %s", got)
		}
	})
}
