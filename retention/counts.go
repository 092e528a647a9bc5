package retention

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// PackageCount is a per-package count (--keep-latest-for core/postgresql=5).
type PackageCount struct {
	Package pkgstore.Ident
	// Keep: 1 or more, or KeepNone.
	Keep int
}

func (c PackageCount) String() string {
	return fmt.Sprintf("%s=%d", c.Package, max(c.Keep, 0))
}

// ParsePackageCount parses "ORIGIN/NAME=N" (0 keeps none by count).
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

// CheckPackageCounts checks KeepLatestFor: origin/names, each once, a
// count set, none of Habitat's own (ErrInvalidPolicy).
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
