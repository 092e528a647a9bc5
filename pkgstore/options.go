package pkgstore

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"
)

// Options tune a scan; the zero value scans for this machine's target.
type Options struct {
	Target string // default: DefaultTarget()
	Sizes  bool   // measure every release (costly on large stores)
	// MeasureBeyond measures the releases beyond the newest MeasureBeyond
	// of each package, while the scan has them open.
	MeasureBeyond int
	Workers       int // origin/name directories read at once; default 4 per CPU
	// BinlinkDirs are read under the FS root; default bin, usr/local/bin,
	// hab/bin (a binlink keeps its release, so there is no "none").
	BinlinkDirs []string
	// Now dates install directories; zero counts every one as active.
	Now time.Time
	// InstallWindow: an install directory or cached archive changed
	// within it before Now is an install in progress. Default one hour.
	InstallWindow time.Duration
	// OnPhase and Logger are told of the scan's progress, one call at a time.
	OnPhase func(PhaseEvent)
	Logger  *slog.Logger
	// Hidden lists a release an interrupted run hid, where its place is
	// free, as if installed (Inventory.Hidden).
	Hidden bool

	streamLimit      int64 // tests: replace depsStreamLimit
	streamIdentBytes int   // and depsStreamIdentBytes
	slowPath         bool  // tests: every release through os.Root
}

// ErrInvalidOptions is wrapped by Options.Validate's errors.
var ErrInvalidOptions = errors.New("invalid scan options")

// Validate refuses negative values; Scan calls it.
func (o Options) Validate() error {
	switch {
	case o.MeasureBeyond < 0:
		return fmt.Errorf("%w: measure-beyond %d is negative (0 measures none by count)", ErrInvalidOptions, o.MeasureBeyond)
	case o.Workers < 0:
		return fmt.Errorf("%w: workers %d is negative (0 is defaultWorkers)", ErrInvalidOptions, o.Workers)
	case o.InstallWindow < 0:
		return fmt.Errorf("%w: install window %s is negative (0 is defaultInstallWindow)", ErrInvalidOptions, o.InstallWindow)
	}
	return nil
}

// defaultWorkers: four per CPU, so that readers blocked on the disk leave
// their CPU to others.
func defaultWorkers() int { return 4 * runtime.GOMAXPROCS(0) }

// defaultBinlinkDirs are where `hab pkg binlink` puts links.
func defaultBinlinkDirs() []string { return []string{"bin", "usr/local/bin", "hab/bin"} }

func (opts Options) withDefaults() (Options, error) {
	if err := opts.Validate(); err != nil {
		return opts, err
	}
	if opts.Target == "" {
		opts.Target = DefaultTarget()
	}
	if err := checkTarget(opts.Target); err != nil {
		return opts, err
	}
	if opts.Workers == 0 {
		opts.Workers = defaultWorkers()
	}
	if len(opts.BinlinkDirs) == 0 {
		opts.BinlinkDirs = defaultBinlinkDirs()
	}
	if opts.InstallWindow == 0 {
		opts.InstallWindow = defaultInstallWindow
	}
	return opts, nil
}
