package schedule

import (
	"context"
	"log/slog"
	"time"

	"github.com/hab-gc/hab-gc/retention"
)

type applyKey struct{}

// applyEnv is what a Scheduler tells RunJob, through the context, since a
// RunFunc's signature predates it.
type applyEnv struct {
	log     *slog.Logger // nil: Apply discards
	pace    time.Duration
	onPhase func(retention.PhaseEvent)
}

func (s *Scheduler) withApply(ctx context.Context, j Job, log *slog.Logger) context.Context {
	env := applyEnv{log: log, pace: s.Pace}
	if f := s.OnPhase; f != nil {
		env.onPhase = func(ev retention.PhaseEvent) { f(j, ev) }
	}
	return context.WithValue(ctx, applyKey{}, env)
}

func applyFrom(ctx context.Context) applyEnv {
	env, _ := ctx.Value(applyKey{}).(applyEnv)
	return env
}
