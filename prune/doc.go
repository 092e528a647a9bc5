// Package prune carries out a whole prune of a store in two calls, as
// `hab-gc run` and the scheduler's prune and pressure jobs do: Plan is the
// dry run, Run.Apply removes what it planned.
//
// Plan does, in this order:
//
//  1. the store's plan (retention.PlanStore under Options.Policy, with
//     Options.Scan): every release kept or removed, with its reasons;
//  2. with Options.Cache, the artifact cache's plan from it
//     (artifactcache.StateOf and Cache.Plan, with the plan's target and
//     pins): an archive whose release is kept stays, one whose release is
//     not installed or removed by the run goes, except the newest of each
//     package. Under disk pressure a release the plan removes counts as
//     kept, since pressure may keep it: its archive goes at a later run;
//  3. with Options.Limits, disk pressure: the free space is read
//     (Options.Free, statfs of the store by default); at or above min-free
//     nothing is removed; below it the cache's archives go first
//     (artifactcache.Limit: a .hart is cheaper to lose than an installed
//     release), then the plan's removals, most superseded first, only for
//     what the archives leave missing (pressure.LimitAfter). Every
//     decision pressure changes says so in its reasons.
//
// Run.Apply then carries it out: the store's removals (retention.Plan.Apply,
// which checks everything again under the store's lock); only when that
// succeeded, the cache's archives, under the store's lock again (or the
// caller's: ApplyOptions.Locked), each judged once more just before it
// goes (artifactcache.Recheck: the archive of a release Apply kept, or of
// a release whose install began since the plan, stays); then, under
// limits, the free space is read again, and Result says what is still
// missing to reach max-free and which kept releases are the largest.
//
// Nothing here prints, exits or reads configuration: what to keep
// (Options), how to show it and what to journal (package history) are the
// caller's. The CLI's one rule about its own flags that is policy, a pin
// given on the command line that matches nothing refuses a real run, is
// UnmatchedRefusals, with the caller saying what was given where.
//
// A cache that cannot be cleaned does not stop the store's part: Run.CacheErr
// says why (artifactcache.ErrNoCache when there is none, nothing to clean;
// Run.CacheUnreadable when it is there but could not be read). An error
// after the store's plan was made (the free space unreadable, bad limits, the
// cache's read interrupted) is a *PlanError carrying that plan, for a
// caller that reports or journals it; a *CacheError from Apply says the
// releases' removal stands but the archives were left.
package prune
