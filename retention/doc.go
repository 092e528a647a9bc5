// Package retention decides which releases of a Habitat package store to
// keep and which to remove, says why for each, and removes them safely.
//
// PlanStore reads a store, asks the policy's RootFinders what is in use and
// makes a Plan (Compute does the same from an inventory alone, reading
// nothing): every installed release Keep or Remove, with reasons as data (a
// stable Code and a sentence; Plan.Why). Like a tracing garbage collector
// it marks from roots and sweeps the rest. Roots are the newest KeepLatest
// of each origin/name, Habitat's own packages (every chef/hab release while
// SelfKeepLatest is unset, as `hab pkg uninstall` does), what loaded
// services run, what running processes and leases use, binlink targets,
// pins (Exclude), releases younger than MinAge, damaged or mounted-on
// releases, the last release shipping an uninstall hook, and what installs
// in progress need. Everything reachable from a root through DEPS or TDEPS
// is kept, its reason naming the chain. Only and ServicesOnly limit the
// removals to some packages and the dependencies only they needed.
//
// Plan.Apply takes the store's lock, scans and plans again, hides the
// releases both plans remove (dependents first, so a run killed at any
// point leaves no listed release needing a hidden one), waits, checks again
// and deletes on the release's own file system without following symlinks.
// Anything newly needed is put back with what it needs. Result accounts
// for every planned removal.
//
// The zero Policy is refused (ErrEmptyPolicy); every other zero value is
// the safe default, as in the CLI. A store with blocking problems is
// refused (ErrDamaged) unless AllowDamaged. Property tests check on random
// stores that no removed release is needed by a kept one, every root is
// kept, and planning again after applying removes nothing more.
// docs/library.md shows the calls; see the package example.
package retention
