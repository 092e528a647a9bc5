package watch

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

// DefaultDelay is how long a package's directories must stay quiet after
// a change before it is purged (Options.Delay 0).
const DefaultDelay = 30 * time.Second

// DefaultUnloadGrace is how long an unloaded service's spec must stay
// gone before its releases go (Options.UnloadGrace 0): Automate-style
// unload/reload cycles must not lose anything.
const DefaultUnloadGrace = 10 * time.Minute

// DefaultInstallWindow is how young a `.hab-pkg-install-*` directory must
// be to count as an install in progress (Options.InstallWindow 0); an
// older one is a killed install's leftover, which Habitat never removes.
const DefaultInstallWindow = time.Hour

// Job is the history's job name of a watch purge (history.Run.Job) and
// its metrics type (metrics' type label).
const Job = "watch"

// Trigger says why a package was purged.
type Trigger string

const (
	// TriggerUpdate: a new release of the package was renamed into place
	// (the Supervisor's package; with All, one no spec loads).
	TriggerUpdate Trigger = "update"
	// TriggerLoad: the Supervisor started a service of the package (its
	// PID file appeared or was replaced: `hab svc load`, `hab svc start`,
	// a restart into an update), as it purges when it starts one.
	TriggerLoad Trigger = "load"
	// TriggerUnload: the package's spec file was removed and stayed gone
	// for the unload grace (Options.OnUnload).
	TriggerUnload Trigger = "unload"
	// TriggerStart: Run started with the service loaded (the Supervisor
	// purges each service as it starts it at start-up).
	TriggerStart Trigger = "start"
)

// ErrNoStore is wrapped by Run's error without a usable Options.Store
// (nil, the zero Store, a closed one): it is pkgstore.ErrNoStore.
var ErrNoStore = pkgstore.ErrNoStore

// Options configure Run. The zero value of each field is its default.
type Options struct {
	// Store is the store to watch (required); its FS root's specs
	// directory is watched too.
	Store *pkgstore.Store
	// Policy is the policy of every purge, as `hab-gc run` would be
	// given it (keep-latest, pins, min-age, root finders...). A purge
	// replaces Policy.Only with the package it is about (still limited
	// to Policy.Only's entries for that package when Only is set).
	Policy retention.Policy
	// Scan are the scan options of every purge's plan (target, binlink
	// directories); Now is set from the clock.
	Scan pkgstore.Options
	// All purges any package that gets a new release; by default only
	// the packages of loaded services (spec files) and the Supervisor's
	// own (chef/hab-sup, chef/hab-launcher, and core/ predecessors).
	All bool
	// WholePackage counts a service's purge over its whole package
	// (origin/name, every version), hab-gc's count, instead of over what
	// its spec names, the Supervisor's.
	WholePackage bool
	// Delay is how long a package must see no change before its purge
	// (default DefaultDelay); it is also the rescan period when inotify
	// cannot be used.
	Delay time.Duration
	// OnUnload purges a package whose spec file was removed and has not
	// come back after UnloadGrace (default DefaultUnloadGrace): none of
	// its releases is kept by count, every other protection holds.
	OnUnload    bool
	UnloadGrace time.Duration
	// InstallWindow: a `.hab-pkg-install-*` directory (not hab-gc's own)
	// younger than this, in the package's directories or those of its
	// dependencies, is an install in progress, and the purge waits
	// another Delay (default DefaultInstallWindow). It is also the
	// plan's pkgstore.Options.InstallWindow when Scan leaves that 0: while
	// the plan waits for an install anywhere (retention.Plan.InstallWait:
	// an install directory, a download, a fetched archive), so does the
	// purge.
	InstallWindow time.Duration
	// LockTimeout is each purge's ApplyOptions.LockTimeout (0:
	// retention.DefaultLockTimeout; retention.NoLockWait: no wait). A
	// purge that cannot take the lock is tried again after Delay.
	LockTimeout time.Duration
	// Settle is each purge's ApplyOptions.Settle: the pause between hiding
	// the releases and the last check for new dependents (0:
	// retention.DefaultSettle, 2s; retention.NoSettle: none).
	Settle time.Duration
	// Pace is each purge's ApplyOptions.Pace: how its deletions yield to
	// the disk's other users (0: full speed; hab-gc watch's default is
	// retention.PaceAuto).
	Pace time.Duration
	// Now is the clock (default time.Now). It must advance with real
	// time (an offset clock is fine): delays are measured with it.
	Now func() time.Time
	// Logger receives one INFO record per purge (ERROR when it failed,
	// not when ctx was cancelled), its details at DEBUG, and the
	// watcher's notices (default: discarded).
	Logger *slog.Logger
	// Metrics, when set, counts every purge as a run of type Job (and
	// its plan and removals) under the store's label.
	Metrics *metrics.Metrics
	// Schedule names the schedule definition whose [watch] table this
	// is (hab-gc daemon); the history records it as the purges' owner.
	// Empty for a watch started by hand (hab-gc watch).
	Schedule string
	// NoHistory leaves the store's history (package history) alone;
	// by default every purge is written there, as every run is.
	NoHistory bool
	// OnStart, when set, is called once the watches are set, before Run
	// waits for changes: a release installed from then on is seen.
	OnStart func()
	// OnPurge, when set, is called after each purge (the CLI writes its
	// metrics file there; tests wait on it).
	OnPurge func(Purge)
	// ProcRoot is where the processes are read to tell which release of
	// the Supervisor's package runs (runroots.Scan; default /proc).
	ProcRoot string
	// MaxWatches, when above 0 (0: no cap but the kernel's), caps the inotify watches as if the
	// kernel's limit (fs.inotify.max_user_watches) were that: reaching it
	// falls back to rescans, as reaching the kernel's does.
	MaxWatches int
}

// Purge is what one purge did: prune.Run's outcome (its Plan and Result
// nil when not made) and error.
type Purge struct {
	Package pkgstore.Ident
	Trigger Trigger
	*prune.Outcome
	Err error
}

// ErrInvalidOptions is wrapped by Options.Validate's errors (and so by
// Run's, which then watches nothing).
var ErrInvalidOptions = errors.New("invalid watch options")

// Validate checks the values of o (not its Store, which Run checks):
// the policy (retention.Policy.Validate), each purge's scan and apply
// options (pkgstore.Options.Validate, retention.ApplyOptions.Validate:
// LockTimeout and Settle are "none" only as retention.NoLockWait and
// retention.NoSettle), and no negative Delay, UnloadGrace, InstallWindow
// or MaxWatches, which have no "none". Run calls it.
func (o Options) Validate() error {
	if err := o.Policy.Validate(); err != nil {
		return err
	}
	if err := o.Scan.Validate(); err != nil {
		return err
	}
	if err := (retention.ApplyOptions{LockTimeout: o.LockTimeout, Settle: o.Settle, Pace: o.Pace}).Validate(); err != nil {
		return err
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"delay", o.Delay}, {"unload grace", o.UnloadGrace}, {"install window", o.InstallWindow}} {
		if d.v < 0 {
			return fmt.Errorf("%w: %s %s is negative (0 is the default)", ErrInvalidOptions, d.name, d.v)
		}
	}
	if o.MaxWatches < 0 {
		return fmt.Errorf("%w: max watches %d is negative (0: the kernel's limit)", ErrInvalidOptions, o.MaxWatches)
	}
	return nil
}

func (o Options) delay() time.Duration {
	if o.Delay == 0 {
		return DefaultDelay
	}
	return o.Delay
}

func (o Options) grace() time.Duration {
	if o.UnloadGrace == 0 {
		return DefaultUnloadGrace
	}
	return o.UnloadGrace
}

func (o Options) installWindow() time.Duration {
	if o.InstallWindow == 0 {
		return DefaultInstallWindow
	}
	return o.InstallWindow
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o Options) log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}
