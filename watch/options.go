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

// DefaultDelay is how long a package must stay quiet before its purge.
const DefaultDelay = 30 * time.Second

// DefaultUnloadGrace outlasts Automate's unload/reload cycles.
const DefaultUnloadGrace = 10 * time.Minute

// DefaultInstallWindow: an older `.hab-pkg-install-*` directory is a
// killed install's leftover, which Habitat never removes.
const DefaultInstallWindow = time.Hour

// Job is a purge's history job and metrics type.
const Job = "watch"

// Trigger says why a package was purged.
type Trigger string

const (
	TriggerUpdate Trigger = "update" // a new release was installed
	TriggerLoad   Trigger = "load"   // a service's PID file appeared or was replaced
	TriggerUnload Trigger = "unload" // its spec stayed removed for UnloadGrace
	TriggerStart  Trigger = "start"  // loaded when Run started
)

// ErrNoStore is pkgstore.ErrNoStore: Options.Store is nil, zero or closed.
var ErrNoStore = pkgstore.ErrNoStore

// Options configure Run. The zero value of each field is its default.
type Options struct {
	Store *pkgstore.Store // required
	// Policy is every purge's; its Only is narrowed to the package.
	Policy retention.Policy
	Scan   pkgstore.Options // Now is set from the clock
	// All purges any package that gets a new release, not only loaded
	// services' and the Supervisor's.
	All bool
	// WholePackage counts over origin/name, not over what the spec names.
	WholePackage bool
	Delay        time.Duration // also the rescan period without inotify
	OnUnload     bool          // none kept by count; every other protection holds
	UnloadGrace  time.Duration
	// InstallWindow is also the scan's when Scan leaves it 0.
	InstallWindow time.Duration
	LockTimeout   time.Duration // per purge; a purge that cannot lock waits another Delay
	Settle        time.Duration
	Pace          time.Duration
	// Now must advance with real time: delays are measured with it.
	Now       func() time.Time
	Logger    *slog.Logger     // default: discarded
	Metrics   *metrics.Metrics // optional
	Schedule  string           // the schedule definition owning this watch, for the history
	NoHistory bool
	OnStart   func() // once the watches are set
	OnPurge   func(Purge)
	ProcRoot  string // default /proc
	// MaxWatches caps inotify watches below the kernel's limit (0: none).
	MaxWatches int
}

// Purge is what one purge did.
type Purge struct {
	Package pkgstore.Ident
	Trigger Trigger
	*prune.Outcome
	Err error
}

// ErrInvalidOptions is wrapped by Options.Validate's errors.
var ErrInvalidOptions = errors.New("invalid watch options")

// Validate checks o but its Store; Run calls it.
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
