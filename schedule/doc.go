// Package schedule runs check and prune jobs on Habitat package stores at
// stable, well-spread times, once per store however many sources ask.
//
// # Definitions
//
// A directory holds one TOML file per schedule:
//
//	name = "team-a"                    # default: the file stem
//	created = 2026-01-02T00:00:00Z     # or a string; default: when first seen
//	fs_root = "/"                      # the store is FS_ROOT/hab/pkgs
//	[check]
//	schedule = "@daily-random"
//	[prune]
//	schedule = "@weekly-random"
//	keep_latest = 3
//	exclude = ["core/postgresql@>=11 <12"]
//	min_age = "2h"
//
// A schedule is a 5-field cron expression or a descriptor (@daily...), or
// a randomized descriptor: @hourly-random, @daily-random, @weekly-random,
// @monthly-random, @yearly-random (@annually-random), optionally limited
// to a window: @daily-random(01:00-05:00), @weekly-random(mon-fri),
// @weekly-random(fri-mon 22:00-02:00) (see Window).
//
// # One job per store
//
// A randomized spec resolves (Resolve) to a concrete cron expression drawn
// from a SHA-256 hash of the canonical store path (absolute, symlinks
// resolved), the job type, the job's parameters and the spec, and the
// identity of the machine at the job's FS root (Scheduler.Machine, else
// its etc/machine-id; not part of the job's key), each
// cron field from its own bits. Schedules that agree on all four share one
// effective Job: it runs once, at a time that does not depend on which
// schedule owns it (the oldest by created time, then by name). A store
// moved behind a symlink (hab/pkgs moved to another disk and linked back)
// keeps the path it had as its identity (State.StoreIDs): its jobs keep
// their keys, times and history. Explicit
// cron specs are honoured as written and never merged.
//
// Every prune appends its removals and its outcome (a refusal too) to
// the history journal of its owner's FS root (package history), as
// `hab-gc run` does.
//
// Several FS roots may reach one store (a symlinked hab/pkgs), each with
// its own specs and binlinks: RunJob removes a release only when the plan
// of every FS root a definition names for that store removes it.
//
// # State and runs
//
// The scheduler persists (atomically) each job's creation, owner, members,
// last due time, last run and run count. A job runs for the latest due
// time after both its creation and its last run: a new schedule does not
// run at once, and a job that missed several runs while hab-gc was down
// runs once. The exception is the job Only names (`daemon --once --job
// KEY`, as an exported timer runs it at the job's due time): when the
// state does not hold it yet, its latest due time runs, so that a timer's
// first firing is not lost. Before running, it takes the store's lock
// (the only rule between processes: a prune holds it exclusive; a check
// shared, as `hab-gc check` does, or runs without it where it cannot be
// taken, with Result.Notice) and reads the state again: a due time the
// state, this Scheduler or, for a prune, the store's history (package
// history, by job key) shows as run is not run again. A job whose store
// is locked waits (bounded), and otherwise stays due and is retried.
//
// A job the state file no longer holds (the file was deleted, or another
// hab-gc rewrote it) is restored from what the Scheduler knows, and keeps
// running. Schedules another directory defines (two daemons with
// different Dirs sharing a state file) are kept, with their jobs, and
// logged: only a Scheduler whose Dir defined a schedule removes it.
//
// A run missed before the Scheduler started (the machine was down) waits a
// stable per-machine delay below CatchUpSpread.
//
// Only a scheduler without ReadOnly writes the state file: one JSON file
// (StatePath, or with StateBesideStores one beside each FS root's store),
// replaced atomically (temporary file, fsync, rename) when an update
// changes it, and read again only when its mark (inode, size, time)
// changes. A state file that is a symlink, not a regular file or of an
// unknown version is refused (ErrState). One that does not parse or is
// larger than 64 MiB (ErrCorruptState) is set aside (STATE.corrupt-TIME,
// never over another), logged at ERROR, and rebuilt: from the
// Scheduler's memory, and for a job it does not know from its
// definition, whose last due time since the definition existed (its
// created time, else its file's modification time) runs once. A job whose last due time is up to a day in the
// future (the clock was set back a little) waits for the clock, so no due
// time runs twice; one further ahead is re-anchored at now. A clock that
// is obviously wrong (before Scheduler.NotBefore, the build time, or more
// than a day before the state's oldest record) holds every scheduled job
// and rewrites nothing until it is right. A state file that cannot be
// written (a full or read-only file system) does not stop Reload: the
// state is read and kept in memory (logged). A run whose record cannot be
// written is not repeated for that due time by the same Scheduler. A
// definition file that is rejected (DefinitionError: file, line, column)
// keeps its schedules' and jobs' state until it is valid again; a
// relative fs_root, or one whose store does not exist yet, is rejected.
//
// # From code
//
// A program such as a Supervisor registers definitions from memory
// (NewDefinition, Scheduler.Register; Dir may then be empty) and gets the
// same validation and merging as files: the store is canonicalised by
// BuildJobs itself, so a trailing slash never makes two jobs. It asks when
// a job runs next (Scheduler.Next, Scheduler.Status) and can run one now and wait
// for it (Scheduler.Trigger, as containerd's ScheduleAndWait): a run under
// way is waited for, triggers that ask meanwhile share the next run, and
// that run counts as the job's due run, so the timed one is not repeated.
// The scheduler's clock and logger reach the plan and Apply, and so do
// Scheduler.Settle (Apply's settle pause) and Scheduler.OnPhase (each
// phase of each prune, with its job). A run's RunOutcome.Result.Err is its
// error for errors.Is and errors.As (retention.ErrDamaged,
// pkgstore.ErrLocked, ErrRemovalsFailed); Result.Error is its text, which
// the state file records. Trigger's error is the one place to look: nil
// exactly when the Outcome did not fail, else wrapping ErrRunFailed and
// the run's error, ErrNotRun, or the context's error; a context already
// ended never starts a run.
//
// Cron expressions are read in a time zone (UTC by default), by systemd's
// calendar rule so that exported timers agree: a wall time that a
// daylight-saving jump skips does not occur (nothing runs for it that
// day); one that occurs twice runs once, at the first.
//
// # Where things are
//
// One idea a file. The Scheduler:
//
//   - scheduler.go: the Scheduler type, its settings and defaults, Validate.
//   - reload.go: what happens to the state when the schedules directory
//     changes (Reload): schedules first seen, gone (goneGrace), held for a
//     rejected file or another daemon; jobs merged with what the state and
//     the memory hold, and dropped.
//   - memory.go: what the Scheduler remembers of each job beside the file
//     (memJob, remember, runs it could not record) and restore.
//   - due.go: when a job is due (anchor, due) and when the loop wakes
//     (NextWake).
//   - rundue.go: a tick (RunDue): which jobs are due now, handed to
//     their stores' workers; RunOutcome.
//   - dispatch.go: the per-store workers (one store's runs never overlap,
//     other stores are not delayed).
//   - runone.go: how a scheduled job is run: the store opened and locked,
//     the due time looked up (state, memory, history), the run, its record.
//   - runjob.go: what a run does on the store (RunJob: a check, or a
//     prune's plan and Apply, package prune's as `hab-gc run`'s, with the
//     FS roots sharing the store), Setup, DefaultRun.
//   - applyenv.go: what the Scheduler tells RunJob through the context
//     (logger, Settle, OnPhase).
//   - pressurejobs.go: [pressure] prunes (RunPressure, addPressure).
//   - catchup.go: the delay of a run missed while hab-gc was down.
//   - clock.go: a clock that is obviously wrong, or was set back
//     (holdForClock, recoverClock, restamp).
//   - storegone.go: a store that cannot be opened (backing off).
//   - trigger.go: running a job now (Trigger, Next); status.go: Status;
//     loop.go: Loop; daemon.go: Serve and RunOnce, the directory watched.
//   - register.go: definitions registered in code.
//
// The state:
//
//   - state.go: the persisted types (State, JobState, RunResult).
//   - statefile.go: the state file read, written, set aside (LoadState,
//     Save); stateroots.go: one file per FS root, merged and split;
//     storeids.go: stores moved behind a symlink.

// Definitions and specs:
//
//   - definition.go: Definition, JobDef, JobType; parsedef.go: a file's
//     TOML (ParseDefinition); loaddir.go: a directory of them (LoadDir);
//     deferror.go: DefinitionError and where a field is written; params.go:
//     a prune's Params; watchdef.go: the [watch] table; suggest.go: a
//     suggestion for an unknown key; canonical.go: canonical store paths.
//   - jobs.go: definitions merged into effective jobs (BuildJobs).
//   - spec.go: schedule specs (ParseSpec); window.go: a randomized spec's
//     window; resolve.go: a randomized spec's time (Resolve); cron.go: a
//     cron expression on a zone's wall clock (Cron).
//   - systemd.go: exported systemd timers; runerr.go: a run's errors.
package schedule
