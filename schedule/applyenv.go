package schedule

import (
	"context"
	"time"

	"github.com/hab-gc/hab-gc/retention"
)

type applyKey struct{}

// applyEnv is what a Scheduler tells RunJob about Apply (Settle, OnPhase),
// through the context, as withLogger does the logger.
type applyEnv struct {
	settle  time.Duration
	onPhase func(retention.PhaseEvent)
}

// withApply carries the Scheduler's Settle and OnPhase, bound to job j, to
// RunJob.
func (s *Scheduler) withApply(ctx context.Context, j Job) context.Context {
	env := applyEnv{settle: s.Settle}
	if f := s.OnPhase; f != nil {
		env.onPhase = func(ev retention.PhaseEvent) { f(j, ev) }
	}
	return context.WithValue(ctx, applyKey{}, env)
}

func applyFrom(ctx context.Context) applyEnv {
	env, _ := ctx.Value(applyKey{}).(applyEnv)
	return env // zero: Apply's defaults
}
