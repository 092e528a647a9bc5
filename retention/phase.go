package retention

import (
	"github.com/hab-gc/hab-gc/pkgstore"
)

// Phase names a step of PlanStore and Apply, in order (pkgstore.Phase:
// one kind of event from the scan to the deletions).
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

// PhaseEvent reports progress through the phases: Done of Total
// releases handled in the phase (both 0 for phases without a count).
type PhaseEvent = pkgstore.PhaseEvent

// phase reports a phase's progress to OnPhase and the Logger.
func (a *applier) phase(ph Phase, done, total int) {
	pkgstore.ReportPhase(a.opts.OnPhase, a.log, PhaseEvent{Phase: ph, Done: done, Total: total})
}
