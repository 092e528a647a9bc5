// Package prune runs a whole prune of a store in one call, for `hab-gc
// run`, the scheduler's jobs and `hab-gc watch`: Run locks the store
// (unless the caller holds the lock), reads and plans it under the lock
// (retention.PlanStore), optionally plans the artifact cache
// (Options.Cache) and disk pressure (Options.Limits: the cache's archives
// first, then the most superseded releases), applies, and records the run
// in the history and the metrics. A dry run reads once, unlocked, and
// changes nothing. Options.Refuse may stop a run before Apply; a refusal
// wrapping ErrSkip is recorded nowhere.
package prune
