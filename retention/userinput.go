package retention

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrWildcard is the error of a pin or an only entry written with a glob
// (core/*, core/redis?): Habitat's idents have no wildcards, and core/*
// would otherwise be a package named "*" that matches nothing.
var ErrWildcard = errors.New("idents take no wildcards; a package is origin/name (core/redis), all its releases included; a version, origin/name/version")

// ErrNotPackage is the error of an only entry that names no package or
// version of one: it must be ORIGIN/NAME or ORIGIN/NAME/VERSION.
var ErrNotPackage = errors.New("must be ORIGIN/NAME or ORIGIN/NAME/VERSION")

// ErrSelfKeepZero is SelfKeepCount's error for a count below 1: Habitat's
// own packages always keep a release (SelfKeepLatest's 0 is unset, never
// none).
var ErrSelfKeepZero = errors.New("the packages of Habitat itself always keep at least one release")

// SelfKeepCount returns the SelfKeepLatest of a count a user gives (a
// flag, a config file): n itself when 1 or more; 0 (and anything below)
// is refused with ErrSelfKeepZero rather than read as unset.
func SelfKeepCount(n int) (int, error) {
	if n < 1 {
		return 0, fmt.Errorf("self-keep-latest %d: %w", n, ErrSelfKeepZero)
	}
	return n, nil
}

// noWildcard refuses a glob in the ident part of item (before any @).
func noWildcard(item string) error {
	id, _, _ := strings.Cut(item, "@")
	if strings.ContainsAny(id, "*?[]") {
		return fmt.Errorf("%q: %w", item, ErrWildcard)
	}
	return nil
}

// ParsePin parses a pin as a user writes it: ParseExclude's
// IDENT[@CONSTRAINT], refused with ErrWildcard when its ident holds a glob.
func ParsePin(item string) (Exclude, error) {
	if err := noWildcard(item); err != nil {
		return Exclude{}, err
	}
	return ParseExclude(item)
}

// ParseOnly parses an entry of Policy.Only as a user writes it:
// ORIGIN/NAME or ORIGIN/NAME/VERSION. A glob is refused with ErrWildcard,
// anything else that is not a package or a version of one with an error
// wrapping ErrNotPackage.
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

// validName reports whether name is a package name Habitat accepts:
// ^[A-Za-z0-9_-]+$ (components/core/src/package/ident.rs
// Identifiable::valid; plan-build refuses any other pkg_name).
func validName(name string) bool {
	return name != "" && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == ""
}
