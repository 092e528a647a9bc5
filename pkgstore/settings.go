package pkgstore

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrBadInstallWindow is wrapped by ParseInstallWindow's errors.
var ErrBadInstallWindow = errors.New("invalid install window")

// ScanSettings are a scan's options as a user sets them, as text:
// ScanSettings.Options turns them into Options with the rules every
// front end shares.
type ScanSettings struct {
	// Target is the package target to scan for; "" is the target
	// Habitat runs as on that machine (InferTarget).
	Target string
	// BinlinkDir is Habitat's HAB_BINLINK_DIR: a directory `hab pkg
	// binlink` links into, read besides DefaultBinlinkDirs. "": none.
	BinlinkDir string
	// InstallWindow is the install window as ParseInstallWindow reads it;
	// nil when it is not set (DefaultInstallWindow).
	InstallWindow *string
}

// Options returns the scan options the settings say for the store at
// fsRoot: Target the one set, refused with ErrUnknownTarget when Habitat
// knows no such target; without one, InferTarget's (its error returned as
// it is when it wraps ErrTargetAmbiguous, while a store InferTarget cannot
// read scans for DefaultTarget and the scan says what is wrong).
// BinlinkDirs are DefaultBinlinkDirs, and BinlinkDir after them when set.
// InstallWindow is ParseInstallWindow's (its error returned). The other
// fields are left zero, for the caller.
func (s ScanSettings) Options(fsRoot string) (Options, error) {
	o := Options{Target: DefaultTarget(), BinlinkDirs: defaultBinlinkDirs()}
	if s.Target == "" {
		t, _, err := InferTarget(fsRoot)
		switch {
		case errors.Is(err, ErrTargetAmbiguous):
			return o, err
		case err == nil:
			o.Target = t
		} // the store unreadable: the scan says so
	} else {
		if err := checkTarget(s.Target); err != nil {
			return o, err
		}
		o.Target = s.Target
	}
	if s.BinlinkDir != "" {
		o.BinlinkDirs = append(o.BinlinkDirs, s.BinlinkDir)
	}
	if s.InstallWindow != nil {
		w, err := parseInstallWindow(*s.InstallWindow)
		if err != nil {
			return o, err
		}
		o.InstallWindow = w
	}
	return o, nil
}

// ParseInstallWindow reads an install window (Options.InstallWindow) as a
// user writes it: a duration such as 10m or 2h, spaces around it ignored;
// 0 is the default, DefaultInstallWindow. An install in progress cannot go
// unprotected, so there is no "none": it, a negative duration and anything
// else are refused with an error wrapping ErrBadInstallWindow.
func parseInstallWindow(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "0" {
		return 0, nil
	}
	w, err := time.ParseDuration(t)
	if err != nil || w < 0 {
		return 0, fmt.Errorf("%w %q: want a duration such as 10m or 2h, or 0 (the default); there is no none", ErrBadInstallWindow, s)
	}
	return w, nil
}
