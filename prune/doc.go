// Package prune is a whole prune in one call, for `hab-gc run`, the
// scheduler's jobs and `hab-gc watch`: Run locks the store, plans under the
// lock, optionally the artifact cache (Options.Cache) and disk pressure
// (Options.Limits: the cache's archives first), applies, and records the
// run in the history and the metrics. A dry run reads once, unlocked. See
// ExampleRun.
package prune
