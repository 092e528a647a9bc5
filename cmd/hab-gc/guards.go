package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hab-gc/hab-gc/retention"
)

// keepNoneStoreWide reports whether c's policy keeps no release of any
// package by count (keep_latest 0) across the whole store: no --only (nor
// IDENT arguments), no services_only limiting it. It says where the 0
// came from.
func keepNoneStoreWide(c *config) (bool, string) {
	pol, err := c.policy(true)
	if err != nil || !retention.KeepsNoneStoreWide(pol) {
		return false, "" // a bad policy is reported by planning it
	}
	return true, c.source("keep_latest")
}

// refuseKeepNone refuses a real run that would keep no release of any
// package by count, store-wide, unless --allow-keep-none confirms it: a
// count of zero removes every release of every package nothing protects,
// rarely what an operator means by it. --only (IDENT arguments) limits it
// to the packages named, which is what `hab pkg uninstall --keep-latest 0
// core/redis` does, and needs no confirmation. A dry run only says so
// (noteKeepNone).
func refuseKeepNone(c *config, allow bool) error {
	none, src := keepNoneStoreWide(c)
	if !none || allow {
		return nil
	}
	return refusedError{fmt.Errorf("refusing to run: keep_latest 0 (%s) keeps no release of any package by count: every release nothing protects (in use, pinned, needed) would go. Pass --allow-keep-none if that is meant, limit it with --only ORIGIN/NAME, or keep 1 or more", src)}
}

// noteKeepNone is the dry run's word on a store-wide keep of none.
func noteKeepNone(c *config, allow bool) string {
	if none, src := keepNoneStoreWide(c); none && !allow {
		return fmt.Sprintf("keep_latest 0 (%s) keeps no release of any package by count: a real run needs --allow-keep-none (or --only)", src)
	}
	return ""
}

// permissionRefused reports whether err is a permission error of a user
// who is not root.
func permissionRefused(err error) bool {
	return err != nil && errors.Is(err, fs.ErrPermission) && os.Geteuid() > 0
}

// needsRoot turns a real run's permission error before it changed
// anything (root's lock file cannot be opened) into a refusal that says
// removing releases needs root; other errors are returned as they are.
func needsRoot(err error) error {
	if !permissionRefused(err) {
		return err
	}
	return refusedError{fmt.Errorf("%w: removing releases needs root (the store and its lock are root's): run it as root, or with --dry-run to see the plan", err)}
}
