package pkgstore

import "log/slog"

// Phase names a step of hab-gc's work on a store, as a progress display
// shows it: the scan here; planning and Apply's phases in package
// retention, which reports them the same way.
type Phase string

// PhaseScan is the scan of the store: Total is the origin/name directories
// found (0 until the store's top two levels are listed), Done those read.
const PhaseScan Phase = "scanning"

// PhaseEvent reports progress through a phase: Done of Total items
// handled (both 0 for a phase without a count). A phase's first event has
// Done 0.
type PhaseEvent struct {
	Phase       Phase
	Done, Total int
}

// ReportPhase tells onPhase (when set) and log (when set) of e: log gets
// a Debug record (a run's outcome is its caller's record). Used by Scan
// and by package retention, so that every phase reaches the caller one
// way.
func ReportPhase(onPhase func(PhaseEvent), log *slog.Logger, e PhaseEvent) {
	if onPhase != nil {
		onPhase(e)
	}
	if log == nil {
		return
	}
	log.Debug("phase", "phase", string(e.Phase), "done", e.Done, "total", e.Total)
}
