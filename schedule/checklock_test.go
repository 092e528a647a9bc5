package schedule_test

import (
	"context"
	"fmt"
	"github.com/hab-gc/hab-gc/schedule"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// A scheduled check behaves as `hab-gc check`: it takes the store's lock
// shared, so it runs beside another check, and it checks without the lock
// (with a notice) where the lock cannot be taken, such as on a read-only
// store. Each due time still runs once.
func TestScheduledCheckSharedLock(t *testing.T) {
	type setup func(t *testing.T, b *storetest.Builder) (fsRoot string)
	readOnly := func(withLockFile bool) setup {
		return func(t *testing.T, b *storetest.Builder) string {
			if withLockFile {
				lockOnce(t, b.Root)
			}
			return storetest.ReadOnly(t, b.Root)
		}
	}
	cases := []struct {
		name   string
		setup  setup
		notice bool // checked without the lock
	}{
		{"read-only store, no lock file", readOnly(false), true},
		{"read-only store, lock file present", readOnly(true), false},
		{"another check holds the lock shared", func(t *testing.T, b *storetest.Builder) string {
			st, err := pkgstore.Open(b.Root)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			unlock, without, err := st.ReadLock(context.Background(), 0)
			if err != nil || without != nil {
				t.Fatal(without, err)
			}
			t.Cleanup(func() { unlock() })
			return b.Root
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			b := hostStore(t)
			b.Add(storetest.Release{Ident: "core/a/1/1", ModTime: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
			root := c.setup(t, b)
			e.write("c", fmt.Sprintf("fs_root = %q\n[check]\nschedule = \"@hourly-random\"\n", root))
			s := e.scheduler()
			s.Run = nil // the real check
			e.reload(s)
			e.clock.Add(2 * time.Hour)
			outs := s.RunDue(context.Background())
			if len(outs) != 1 || outs[0].Status != schedule.Ran || !outs[0].Result.OK || outs[0].Result.Error != "" {
				t.Fatalf("outcomes: %+v; want the check run, OK", outs)
			}
			if got := outs[0].Result.Notice != ""; got != c.notice {
				t.Errorf("notice %q; want one: %v", outs[0].Result.Notice, c.notice)
			}
			if outs := s.RunDue(context.Background()); len(outs) != 0 {
				t.Fatalf("the same due time ran again: %+v", outs)
			}
		})
	}
}

// lockOnce creates the store's lock file as a run would.
func lockOnce(t *testing.T, fsRoot string) {
	t.Helper()
	storetest.HoldLock(t, fsRoot)()
}
