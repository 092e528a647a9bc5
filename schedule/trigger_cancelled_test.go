package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/schedule"
)

// With a context already cancelled, Trigger neither
// starts nor records a run (it used to, in about half the calls: the run's
// goroutine raced the caller's select on ctx.Done()).
func TestTriggerCancelledNeverRuns(t *testing.T) {
	var runs atomic.Int32
	s, key, e := triggerEnv(t, func(ctx context.Context) (schedule.RunResult, error) {
		runs.Add(1)
		return schedule.RunResult{OK: true, Removed: 1}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 20 {
		e.clock.Add(time.Minute)
		o, err := s.Trigger(ctx, key)
		if !errors.Is(err, context.Canceled) || o.Status == schedule.Ran {
			t.Fatalf("trigger %d: Ran=%v err=%v, want context.Canceled and no run", i, o.Status == schedule.Ran, err)
		}
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("%d runs started with a cancelled context", n)
	}
	st, err := schedule.LoadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if js := st.Jobs[key]; js == nil || js.Runs != 0 || js.LastRun != nil {
		t.Fatalf("recorded %+v, want no run", js)
	}
}

// Trigger's error is the one place to look. It is nil
// exactly when the outcome did not fail, and wraps ErrRunFailed and the
// run's own error when the run failed.
func TestTriggerErrorIsTheRunsError(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		res     schedule.RunResult
		err     error
		wantErr []error
	}{
		{"ok", schedule.RunResult{OK: true, Removed: 1}, nil, nil},
		{"error", schedule.RunResult{}, fmt.Errorf("pruning: %w", boom), []error{schedule.ErrRunFailed, boom}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, key, _ := triggerEnv(t, func(ctx context.Context) (schedule.RunResult, error) { return tt.res, tt.err })
			o, err := s.Trigger(context.Background(), key)
			if o.Status != schedule.Ran {
				t.Fatalf("not run: %+v, %v", o, err)
			}
			if (err != nil) != o.Failed() {
				t.Fatalf("err %v but Failed %v", err, o.Failed())
			}
			if tt.wantErr == nil && err != nil {
				t.Fatalf("err %v, want nil", err)
			}
			for _, w := range tt.wantErr {
				if !errors.Is(err, w) {
					t.Errorf("err %v does not wrap %v", err, w)
				}
			}
			if tt.res.Error != "" && !strings.Contains(err.Error(), tt.res.Error) {
				t.Errorf("err %q does not say %q", err, tt.res.Error)
			}
		})
	}
}

// A job that cannot run (its store is gone) stays due, and Trigger's
// error says so (ErrNotRun).
func TestTriggerErrorNotRun(t *testing.T) {
	s, key, _ := triggerEnv(t, func(ctx context.Context) (schedule.RunResult, error) {
		return schedule.RunResult{OK: true}, nil
	})
	if err := testtool.RemoveAll(s.Jobs()[0].FSRoot); err != nil {
		t.Fatal(err)
	}
	o, err := s.Trigger(context.Background(), key)
	if o.Status == schedule.Ran || !o.Failed() || !errors.Is(err, schedule.ErrNotRun) || errors.Is(err, schedule.ErrRunFailed) {
		t.Fatalf("outcome %+v, err %v; want ErrNotRun", o, err)
	}
}
