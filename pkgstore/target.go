package pkgstore

import (
	"fmt"
	"runtime"
)

// Targets are the package targets Habitat knows. A release counts as
// installed only when its TARGET file names the target being scanned for.
var knownTargets = []string{
	"x86_64-linux", "x86_64-linux-kernel2", "x86_64-windows", "x86_64-darwin",
	"aarch64-linux", "aarch64-darwin", "aarch64-windows",
}

// ValidTarget reports whether t is one of Habitat's package targets.
func ValidTarget(t string) bool {
	for _, k := range knownTargets {
		if t == k {
			return true
		}
	}
	return false
}

// KnownTargets returns Habitat's package targets.
func KnownTargets() []string { return append([]string(nil), knownTargets...) }

// DefaultTarget returns the target of the machine hab-gc runs on, as
// Habitat names it (x86_64-linux on amd64 Linux, and so on).
func DefaultTarget() string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	return arch + "-" + runtime.GOOS
}

func checkTarget(t string) error {
	if !ValidTarget(t) {
		return fmt.Errorf("unknown package target %q (known: %v)", t, knownTargets)
	}
	return nil
}
