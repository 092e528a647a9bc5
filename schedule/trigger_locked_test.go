package schedule_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// TestTriggerWrapsWhyNotRun: a run that could not start because another
// holds the store's lock returns an error wrapping ErrNotRun and the
// cause, pkgstore.ErrLocked.
func TestTriggerWrapsWhyNotRun(t *testing.T) {
	s, key, _ := triggerEnv(t, func(ctx context.Context) (schedule.RunResult, error) {
		return schedule.RunResult{OK: true}, nil
	})
	s.LockTimeout = retention.NoLockWait
	store, err := pkgstore.Open(s.Jobs()[0].FSRoot)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	unlock, err := store.Lock(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	o, err := s.Trigger(context.Background(), key)
	if o.Status == schedule.Ran || !errors.Is(err, schedule.ErrNotRun) || !errors.Is(err, pkgstore.ErrLocked) {
		t.Fatalf("Trigger on a locked store: ran %v, %v; want ErrNotRun wrapping pkgstore.ErrLocked", o.Status == schedule.Ran, err)
	}
}
