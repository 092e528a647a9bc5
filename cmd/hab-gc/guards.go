package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hab-gc/hab-gc/retention"
)

// keepNone refuses a real run that keeps no release of any package by
// count, store-wide, without --allow-keep-none (--only needs none, as
// hab pkg uninstall --keep-latest 0 core/redis); a dry run only says so.
func (a *app) keepNone(c *config, dry, allow bool) error {
	pol, err := c.policy(true)
	if allow || err != nil || !keepsNoneStoreWide(pol) {
		return nil // a bad policy is reported by planning it
	}
	src := c.source("keep_latest")
	if dry {
		fmt.Fprintf(a.textErr, "hab-gc: note: keep_latest 0 (%s) keeps no release of any package by count: a real run needs --allow-keep-none (or --only)\n", src)
		return nil
	}
	return refusedError{fmt.Errorf("refusing to run: keep_latest 0 (%s) keeps no release of any package by count: every release nothing protects (in use, pinned, needed) would go. Pass --allow-keep-none if that is meant, limit it with --only ORIGIN/NAME, or keep 1 or more", src)}
}

func permissionRefused(err error) bool {
	return err != nil && errors.Is(err, fs.ErrPermission) && os.Geteuid() > 0
}

// needsRoot says that removing releases needs root.
func needsRoot(err error) error {
	if !permissionRefused(err) {
		return err
	}
	return refusedError{fmt.Errorf("%w: removing releases needs root (the store and its lock are root's): run it as root, or with --dry-run to see the plan", err)}
}

// keepsNoneStoreWide reports whether p is KeepNone with no Only or
// ServicesOnly limit: rarely meant, so run asks --allow-keep-none.
func keepsNoneStoreWide(p retention.Policy) bool {
	return p.KeepLatest == retention.KeepNone && len(p.Only) == 0 && !p.ServicesOnly
}
