package retention

import (
	"github.com/hab-gc/hab-gc/pkgstore"
)

// Phase names a step of PlanStore and Apply, in order.
type Phase = pkgstore.Phase

const (
	PhaseScan    Phase = pkgstore.PhaseScan // PlanStore's scan (Total: origin/name directories, once listed)
	PhasePlan    Phase = "planning"         // PlanStore: what is in use, the plan, the sizes of removals
	PhaseLock    Phase = "locking"          // waiting for the store's lock
	PhaseRescan  Phase = "rescanning"       // the store again, under the lock, and revalidating the plan
	PhaseHide    Phase = "hiding"           // renaming releases out of Habitat's sight (Total: planned removals)
	PhaseSettle  Phase = "settling"         // the pause for installs in flight
	PhaseRecheck Phase = "re-checking"      // the store once more, for new dependents
	PhaseDelete  Phase = "deleting"         // the hidden releases no one needs (Total: those hidden)
	PhasePutBack Phase = "putting back"     // hidden releases back under their names (Total: those put back), on a stop or for what needs them
)

// PhaseEvent: Done of Total releases handled in the phase.
type PhaseEvent = pkgstore.PhaseEvent

func (a *applier) phase(ph Phase, done, total int) {
	pkgstore.ReportPhase(a.opts.OnPhase, a.log, PhaseEvent{Phase: ph, Done: done, Total: total})
}
