package pkgstore

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
)

// KnownTargets returns the package targets Habitat knows. A release counts
// as installed only when its TARGET file names the target being scanned
// for.
func KnownTargets() []string {
	return []string{
		"x86_64-linux", "x86_64-linux-kernel2", "x86_64-windows", "x86_64-darwin",
		"aarch64-linux", "aarch64-darwin", "aarch64-windows",
	}
}

// validTarget reports whether t is one of Habitat's package targets. (A
// switch, not a lookup in KnownTargets: it runs once per release scanned.)
func validTarget(t string) bool {
	switch t {
	case "x86_64-linux", "x86_64-linux-kernel2", "x86_64-windows", "x86_64-darwin",
		"aarch64-linux", "aarch64-darwin", "aarch64-windows":
		return true
	}
	return false
}

// DefaultTarget returns the target of the machine hab-gc runs on, as
// Habitat names it (x86_64-linux on amd64 Linux, and so on).
func DefaultTarget() string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	return arch + "-" + runtime.GOOS
}

// ErrUnknownTarget is wrapped by the error of a package target Habitat
// does not know (see KnownTargets): a scan for it, or a ScanSettings
// target.
var ErrUnknownTarget = errors.New("unknown package target")

// checkTarget refuses a target Habitat does not know (ErrUnknownTarget).
func checkTarget(t string) error {
	if !validTarget(t) {
		return fmt.Errorf("%w %q (known: %s)", ErrUnknownTarget, t, strings.Join(KnownTargets(), ", "))
	}
	return nil
}

// targetNotInstalled is the problem of a store where no release of target
// is installed but releases of other targets are (foreign: count by
// target).
func targetNotInstalled(target string, foreign map[string]int) Problem {
	ts := make([]string, 0, len(foreign))
	for t := range foreign {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%d of %s", foreign[t], t)
	}
	return Problem{Path: StoreDir, Kind: ProblemTargetNotInstalled, Blocking: true,
		Message: fmt.Sprintf("no release of target %s is installed, but releases of other targets are (%s): %s is likely not the target Habitat runs as here, and nothing would be done; set the target to scan for (--target, HAB_GC_TARGET)",
			target, strings.Join(parts, ", "), target)}
}
