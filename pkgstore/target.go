package pkgstore

import (
	"fmt"
	"runtime"
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

// ValidTarget reports whether t is one of Habitat's package targets. (A
// switch, not a lookup in KnownTargets: it runs once per release scanned.)
func ValidTarget(t string) bool {
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

func checkTarget(t string) error {
	if !ValidTarget(t) {
		return fmt.Errorf("unknown package target %q (known: %s)", t, strings.Join(KnownTargets(), ", "))
	}
	return nil
}
