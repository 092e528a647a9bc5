// Package prune runs a whole prune of a store in one call, as `hab-gc
// run`, the scheduler's prune and pressure jobs and `hab-gc watch`'s
// purges do: Run locks the store (unless the caller holds the lock),
// reads and plans it under the lock, applies the plan with the lock held,
// then records the run in the store's history and the metrics. A dry run
// (Options.DryRun) reads the store once, without the lock, and changes
// and records nothing.
//
// The plan is retention.PlanStore's under Options.Policy; with
// Options.Cache, the artifact cache's plan from it (an archive whose
// release is kept stays, one whose release is not installed or removed
// goes, except the newest of each package); with Options.Limits, disk
// pressure: at or above min-free nothing is removed, below it the cache's
// archives go first, then the plan's removals, most superseded first,
// only for what the archives leave missing. Options.Refuse may stop the
// run between its plan and its Apply (the CLI's rule about command-line
// pins that match nothing: RefuseUnmatched); a refusal wrapping ErrSkip
// is recorded nowhere.
//
// Apply checks everything again under the lock (retention.Plan.Apply);
// only when it succeeded do the cache's archives go, each judged once
// more just before (artifactcache.Recheck); under Limits the free space
// is read again. The Outcome says what was planned and done; Options'
// Logger, OnPhase and OnPlan see the phases, the plan before it is applied, and Apply's log.
//
// Nothing here prints, exits or reads configuration.
package prune
