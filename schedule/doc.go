// Package schedule runs check and prune jobs on Habitat package stores at
// stable, well-spread times, once per store however many sources ask.
//
// A directory holds one TOML file per schedule:
//
//	name = "team-a"                    # default: the file stem
//	created = 2026-01-02T00:00:00Z     # default: when first seen
//	fs_root = "/"                      # the store is FS_ROOT/hab/pkgs
//	[check]
//	schedule = "@daily-random"
//	[prune]
//	schedule = "@weekly-random(mon-fri 01:00-05:00)"
//	keep_latest = 3
//	exclude = ["core/postgresql@>=11 <12"]
//
// A schedule is cron (5 fields or @daily...; robfig/cron parses it) or a
// randomized descriptor (@hourly-random ... @yearly-random, optionally with
// a window). A randomized spec resolves to a cron expression
// drawn from a hash of the canonical store, the job type, its parameters,
// the spec and the machine's identity: schedules that agree share one Job,
// owned by the oldest, that runs once at a time that survives restarts.
// Explicit cron is never merged. Cron is read on a zone's wall clock by
// systemd's rule, so that exported timers (WriteUnits) agree.
//
// The state is a JSON file per FS root (or StatePath), replaced atomically
// and read again only when it changes. A job runs for the latest due time
// after both its creation and its last run: a new schedule does not run at
// once, and downtime costs one run, after a stable per-machine delay below
// CatchUpSpread. Runs take the store's lock (the only rule between
// processes) and look again under it, so no due time runs twice. A damaged
// state is set aside and rebuilt; an obviously wrong clock holds the jobs.
//
// Programs register definitions in code (NewDefinition, Register) and run
// a job now (Trigger: concurrent callers share one run, which counts as
// the job's due run).
package schedule
