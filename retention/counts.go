package retention

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// PackageCount is a per-package count (Policy.KeepLatestFor): the
// Supervisor-wide keep_latest with a per-service override, as
// `--keep-latest-for core/postgresql=5` says it.
type PackageCount struct {
	// Package is an origin/name (no version).
	Package pkgstore.Ident
	// Keep is how many of the package's newest releases to keep by count:
	// 1 or more, or KeepNone. 0 is unset, and refused.
	Keep int
}

// String spells the count as the CLI reads it: "core/postgresql=5".
func (c PackageCount) String() string {
	return fmt.Sprintf("%s=%d", c.Package, max(c.Keep, 0))
}

// ParsePackageCount parses "ORIGIN/NAME=N" (N a whole number, 0 or more;
// 0 keeps none by count, as KeepCount says).
func ParsePackageCount(s string) (PackageCount, error) {
	name, num, ok := strings.Cut(s, "=")
	if !ok {
		return PackageCount{}, fmt.Errorf("%w: keep-latest-for %q: must be ORIGIN/NAME=N", ErrInvalidPolicy, s)
	}
	id, err := pkgstore.ParseIdent(strings.TrimSpace(name))
	if err != nil {
		return PackageCount{}, fmt.Errorf("keep-latest-for %q: %w", s, err)
	}
	if id.Version != "" {
		return PackageCount{}, fmt.Errorf("%w: keep-latest-for %q: must name an origin/name, without a version", ErrInvalidPolicy, s)
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 0 {
		return PackageCount{}, fmt.Errorf("%w: keep-latest-for %q: the count must be a whole number, 0 or more", ErrInvalidPolicy, s)
	}
	return PackageCount{Package: id, Keep: KeepCount(n)}, nil
}

// CheckPackageCounts checks per-package counts (Policy.KeepLatestFor, as
// Validate does): origin/names only, each once, with a count set, and none
// of Habitat's own packages (SelfKeepLatest says how many of those to
// keep). Its errors wrap ErrInvalidPolicy and name the package.
func CheckPackageCounts(counts []PackageCount) error {
	seen := map[string]bool{}
	for _, c := range counts {
		pkg := c.Package.String()
		switch {
		case c.Package.Origin == "" || c.Package.Name == "" || c.Package.Version != "":
			return fmt.Errorf("%w: keep-latest-for %q must name an origin/name", ErrInvalidPolicy, pkg)
		case c.Keep == 0 || c.Keep < KeepNone:
			return fmt.Errorf("%w: keep-latest-for %s: count %d (1 or more, or KeepNone)", ErrInvalidPolicy, pkg, c.Keep)
		case IsHabitatPackage(c.Package):
			return fmt.Errorf("%w: keep-latest-for %s: Habitat's own packages keep self-keep-latest, not a per-package count", ErrInvalidPolicy, pkg)
		case seen[pkg]:
			return fmt.Errorf("%w: keep-latest-for %s is given twice", ErrInvalidPolicy, pkg)
		}
		seen[pkg] = true
	}
	return nil
}

// The count a package keeps (Plan.keepFor, with the store's spelling of
// each entry's package) is in casefold.go.
