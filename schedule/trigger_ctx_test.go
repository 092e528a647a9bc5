package schedule_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// triggerEnv is a scheduler with one registered prune job whose runs call
// run.
func triggerEnv(t *testing.T, run func(ctx context.Context) (schedule.RunResult, error)) (*schedule.Scheduler, string, *env) {
	t.Helper()
	e := newEnv(t)
	root := hostStore(t).Root
	s := e.scheduler()
	s.Dir = ""
	s.Run = func(ctx context.Context, j schedule.Job, st *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
		return run(ctx)
	}
	d, err := schedule.NewDefinition("redis", root, time.Time{}, pruneJob(t, "@daily-random", 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Register(d); err != nil {
		t.Fatal(err)
	}
	e.reload(s)
	return s, s.Jobs()[0].Key, e
}

// A run that finished is reported as run even when the
// caller's context ended during it (it used to be lost about half the
// time to a select picking ctx.Done()).
func TestTriggerKeepsFinishedOutcome(t *testing.T) {
	var cancel context.CancelFunc
	s, key, e := triggerEnv(t, func(ctx context.Context) (schedule.RunResult, error) {
		cancel() // the caller gives up while releases are being removed
		return schedule.RunResult{OK: true, Removed: 2}, nil
	})
	for i := range 40 {
		var ctx context.Context
		e.clock.Add(time.Minute) // each trigger a run of its own
		ctx, cancel = context.WithCancel(context.Background())
		o, err := s.Trigger(ctx, key)
		cancel()
		if err != nil || o.Status != schedule.Ran || o.Result.Removed != 2 {
			t.Fatalf("trigger %d: Ran=%v Removed=%d err=%v, want the run's outcome", i, o.Status == schedule.Ran, o.Result.Removed, err)
		}
	}
}

// A trigger that joins a pending run keeps it even when
// the caller that started it cancels: a caller's context only ends its
// own wait.
func TestTriggerJoinerOwnContext(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 3)
	s, key, e := triggerEnv(t, func(ctx context.Context) (schedule.RunResult, error) {
		started <- struct{}{}
		<-release
		return schedule.RunResult{OK: true, Removed: 1}, nil
	})
	first := make(chan error, 1)
	go func() { _, err := s.Trigger(context.Background(), key); first <- err }()
	<-started // run 1 under way: the next trigger waits for it
	e.clock.Add(time.Minute)
	ctxB, cancelB := context.WithCancel(context.Background())
	b := make(chan error, 1)
	go func() { _, err := s.Trigger(ctxB, key); b <- err }()
	time.Sleep(200 * time.Millisecond) // B's run is pending
	type res struct {
		o   schedule.RunOutcome
		err error
	}
	c := make(chan res, 1)
	go func() { o, err := s.Trigger(context.Background(), key); c <- res{o, err} }()
	time.Sleep(200 * time.Millisecond) // C joined B's pending run
	cancelB()
	if err := <-b; !errors.Is(err, context.Canceled) {
		t.Errorf("B: err = %v, want context.Canceled", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("first: %v", err)
	}
	r := <-c
	if r.err != nil || r.o.Status != schedule.Ran || r.o.Result.Removed != 1 {
		t.Fatalf("C: Ran=%v Removed=%d err=%v, want its run despite B's cancel", r.o.Status == schedule.Ran, r.o.Result.Removed, r.err)
	}
}
