package retention

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrWildcard: Habitat's idents have no wildcards (core/* would match
// nothing).
var ErrWildcard = errors.New("idents take no wildcards; a package is origin/name (core/redis), all its releases included; a version, origin/name/version")

var ErrNotPackage = errors.New("must be ORIGIN/NAME or ORIGIN/NAME/VERSION")

var ErrSelfKeepZero = errors.New("the packages of Habitat itself always keep at least one release")

// SelfKeepCount is the SelfKeepLatest of a user's count: below 1 is
// refused (ErrSelfKeepZero), not read as unset.
func SelfKeepCount(n int) (int, error) {
	if n < 1 {
		return 0, fmt.Errorf("self-keep-latest %d: %w", n, ErrSelfKeepZero)
	}
	return n, nil
}

func noWildcard(item string) error {
	id, _, _ := strings.Cut(item, "@")
	if strings.ContainsAny(id, "*?[]") {
		return fmt.Errorf("%q: %w", item, ErrWildcard)
	}
	return nil
}

// ParsePin is ParseExclude refusing a glob.
func ParsePin(item string) (Exclude, error) {
	if err := noWildcard(item); err != nil {
		return Exclude{}, err
	}
	return ParseExclude(item)
}

// ParseOnly parses ORIGIN/NAME or ORIGIN/NAME/VERSION.
func ParseOnly(item string) (pkgstore.Ident, error) {
	if err := noWildcard(item); err != nil {
		return pkgstore.Ident{}, err
	}
	id, err := pkgstore.ParseIdent(item)
	if err != nil {
		return pkgstore.Ident{}, fmt.Errorf("%q: %w (%v)", item, ErrNotPackage, err)
	}
	if id.Release != "" {
		return pkgstore.Ident{}, fmt.Errorf("%q: %w (it names a release)", item, ErrNotPackage)
	}
	if !validName(id.Name) {
		why := "a package's name is letters, digits, _ and -, as Habitat's"
		if strings.Contains(item, "@") {
			why = "it takes no version constraint; a pin does (core/redis@>=6)"
		}
		return pkgstore.Ident{}, fmt.Errorf("%q: %w (%s)", item, ErrNotPackage, why)
	}
	return id, nil
}

// validName: ^[A-Za-z0-9_-]+$ (components/core/src/package/ident.rs
// Identifiable::valid).
func validName(name string) bool {
	return name != "" && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == ""
}
