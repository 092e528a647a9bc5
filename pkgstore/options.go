package pkgstore

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"
)

// Options tune a scan. The zero value scans for this machine's target with
// one worker per CPU and no sizes.
type Options struct {
	// Target is the package target releases must have to count as
	// installed. Default: DefaultTarget().
	Target string
	// Sizes asks for each release's size on disk (a walk of every release;
	// costly on large stores).
	Sizes bool
	// MeasureBeyond, when positive, asks for the size of each release
	// that is not among the newest MeasureBeyond of its package: those a
	// keep-latest policy may remove. They are measured while the scan has
	// their directory open, at a fraction of what measuring them
	// afterwards costs (Store.MeasureSizes); a release the scan could not
	// measure so keeps Size -1.
	MeasureBeyond int
	// Workers is how many origin/name directories are read at once.
	// Default (0): defaultWorkers(). Negative: refused (Validate).
	Workers int
	// BinlinkDirs are the directories to read binlinks from, relative to
	// the FS root (absolute paths are taken under the FS root too).
	// Default (nil or empty): defaultBinlinkDirs(); a binlink keeps the
	// release it points into, so there is no "none".
	BinlinkDirs []string
	// Now is the time used to report the age of leftover install
	// directories and to tell an install in progress (see
	// InstallWindow); zero leaves ages out, and every install directory
	// then counts as active.
	Now time.Time
	// InstallWindow: an install directory with anything in it changed
	// (modified, or its inode changed) within this time before Now, and
	// an archive that came into the artifact cache within it, count as an
	// install in progress (Installing.Active). Default
	// defaultInstallWindow.
	InstallWindow time.Duration
	// OnPhase, when set, is told of the scan's progress (PhaseScan): once
	// at the start (Total 0), once the origin/name directories are listed
	// (Done 0, Total their number), then after each is read (Done of
	// Total). Called from scan goroutines, one call at a time.
	OnPhase func(PhaseEvent)
	// Logger receives the same events (see ReportPhase). Default: none.
	Logger *slog.Logger
	// Hidden lists, among Releases, each release an interrupted hab-gc
	// run hid (a "pending" directory of Debris) whose place is free, read
	// from its hidden directory as if installed (Inventory.Hidden), so
	// that a plan decides about it as about any other. A listed hidden
	// release satisfies what needs it: a scan that must see what needs a
	// hidden release leaves this unset.
	Hidden bool

	// streamLimit and streamIdentBytes, when positive, replace
	// depsStreamLimit and depsStreamIdentBytes (tests).
	streamLimit      int64
	streamIdentBytes int

	// slowPath makes the scan read every release through os.Root
	// (scanNameSlow), as where safeio.DirFD is missing; tests compare
	// the two paths.
	slowPath bool
}

// ErrInvalidOptions is wrapped by Options.Validate's errors (and so by
// Scan's, which then reads nothing).
var ErrInvalidOptions = errors.New("invalid scan options")

// Validate refuses negative values: no field of Options has a named
// "none" below zero (docs/library.md, "Zero and negative values"). Scan
// calls it.
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

// defaultWorkers is how many directories a scan reads at once by default:
// four per CPU the Go runtime uses (GOMAXPROCS). A reader blocked in a
// system call (a directory or file not in the page cache) leaves its CPU
// to another, so more readers than CPUs keep both the CPUs and the disk
// busy.
func defaultWorkers() int { return 4 * runtime.GOMAXPROCS(0) }

// defaultBinlinkDirs returns where `hab pkg binlink` puts links: bin and
// usr/local/bin (Linux and macOS defaults), and hab/bin. Add
// HAB_BINLINK_DIR when it is set.
func defaultBinlinkDirs() []string { return []string{"bin", "usr/local/bin", "hab/bin"} }

// withDefaults checks the options (Validate) and the target, and fills in
// the defaults of those left zero.
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
