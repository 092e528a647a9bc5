package schedule

import (
	"context"
	"log/slog"
	"time"

	"github.com/hab-gc/hab-gc/retention"
)

type applyKey struct{}

// applyEnv is what a Scheduler tells RunJob about Apply (Pace, OnPhase),
// through the context, as withLogger does the logger.
type applyEnv struct {
	pace    time.Duration
	onPhase func(retention.PhaseEvent)
}

// withApply carries the Scheduler's Pace and OnPhase, bound to job j, to
// RunJob.
func (s *Scheduler) withApply(ctx context.Context, j Job) context.Context {
	env := applyEnv{pace: s.Pace}
	if f := s.OnPhase; f != nil {
		env.onPhase = func(ev retention.PhaseEvent) { f(j, ev) }
	}
	return context.WithValue(ctx, applyKey{}, env)
}

func applyFrom(ctx context.Context) applyEnv {
	env, _ := ctx.Value(applyKey{}).(applyEnv)
	return env // zero: Apply's defaults
}

type loggerKey struct{}

// withLogger carries the scheduler's logger to RunJob through a RunFunc,
// whose signature predates it.
func withLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, log)
}

func loggerFrom(ctx context.Context) *slog.Logger {
	log, _ := ctx.Value(loggerKey{}).(*slog.Logger)
	return log // nil: Apply discards
}
