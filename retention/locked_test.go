package retention_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// holdLockElsewhere has another process (util-linux flock(1)) hold the
// store's exclusive lock until the test ends.
func holdLockElsewhere(t *testing.T, fsRoot string) {
	t.Helper()
	testtool.HoldFlock(t, filepath.Join(fsRoot, pkgstore.StoreDir, pkgstore.LockFile))
}

// ApplyOptions.Locked is checked, not trusted. With the
// lock held by another process, or by nobody, or by another Store of this
// process, Apply changes nothing and says the lock is not held; with the
// lock taken on the Store it is given, it removes.
func TestApplyLockedIsChecked(t *testing.T) {
	cases := []struct {
		name string
		hold func(t *testing.T, fsRoot string, st *pkgstore.Store)
		want error // nil: Apply removes
	}{
		{"another process holds it", func(t *testing.T, fsRoot string, _ *pkgstore.Store) { holdLockElsewhere(t, fsRoot) }, pkgstore.ErrNotLocked},
		{"nobody holds it", func(*testing.T, string, *pkgstore.Store) {}, pkgstore.ErrNotLocked},
		{"another Store of this process holds it", func(t *testing.T, fsRoot string, _ *pkgstore.Store) { storetest.HoldLock(t, fsRoot) }, pkgstore.ErrNotLocked},
		{"released before Apply", func(t *testing.T, _ string, st *pkgstore.Store) {
			unlock, err := st.Lock(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			unlock()
		}, pkgstore.ErrNotLocked},
		{"this Store holds it", func(t *testing.T, _ string, st *pkgstore.Store) {
			unlock, err := st.Lock(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { unlock() })
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := base(t)
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			st := storetest.Open(t, b.Root)
			c.hold(t, b.Root, st)
			res, err := p.Apply(context.Background(), st, retention.ApplyOptions{Locked: true, Settle: -1})
			if c.want == nil {
				if err != nil || res.Removed == 0 {
					t.Fatalf("Apply under its own lock: removed %v, %v", res, err)
				}
				return
			}
			if !errors.Is(err, c.want) || res == nil || res.Removed != 0 || res.NotAttempted != len(p.Removals()) {
				t.Fatalf("Apply: %+v, %v; want every removal not attempted and an error wrapping %v", res, err, c.want)
			}
			for _, id := range []string{redis1, redis2, glibc1} {
				if !exists(b.PkgPath(id) + "/TARGET") {
					t.Errorf("%s removed while the lock was not held", id)
				}
			}
		})
	}
}
