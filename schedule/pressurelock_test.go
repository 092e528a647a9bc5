package schedule_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestPressureWaitsForTheLock: a pressure prune waits
// for the store's lock as every prune does: LockTimeout 0 waits
// retention.DefaultLockTimeout (it tried once, and skipped the run),
// retention.NoLockWait not at all.
func TestPressureWaitsForTheLock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		ran     bool
	}{
		{"zero waits the default", 0, true},
		{"NoLockWait does not wait", retention.NoLockWait, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			root := e.store()
			e.write("a", fmt.Sprintf("fs_root = %q\n[pressure]\nmin_free = \"1GiB\"\nkeep_latest = 1\n", root))
			s := &schedule.Scheduler{Dir: e.dir, StatePath: e.state, LockTimeout: tc.timeout,
				Free: func(string) (pressure.Space, error) { return pressure.Space{Avail: 0, Total: 100 << 30}, nil },
				Run: func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
					return schedule.RunResult{OK: true}, nil
				}}
			if _, err := s.Reload(); err != nil {
				t.Fatal(err)
			}
			st := storetest.Open(t, root)
			unlock, err := st.Lock(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			released := make(chan struct{})
			go func() { time.Sleep(300 * time.Millisecond); unlock(); close(released) }()
			outs := s.RunDue(context.Background())
			<-released
			if len(outs) != 1 || (outs[0].Status == schedule.Ran) != tc.ran {
				t.Fatalf("outcomes %+v, want one that ran: %v", outs, tc.ran)
			}
		})
	}
}
