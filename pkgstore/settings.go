package pkgstore

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrBadInstallWindow is wrapped by an install window's error.
var ErrBadInstallWindow = errors.New("invalid install window")

// ScanSettings are a scan's options as a user writes them.
type ScanSettings struct {
	Target        string  // "": the one Habitat runs as (InferTarget)
	BinlinkDir    string  // HAB_BINLINK_DIR, read besides the defaults
	InstallWindow *string // a duration such as 10m; nil: the default
}

// Options returns the scan options for the store at fsRoot, with the rules
// every front end shares; other fields are left zero.
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

// parseInstallWindow reads a duration; 0 is the default, and there is no
// "none" (ErrBadInstallWindow).
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
