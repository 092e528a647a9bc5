package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// checkFSRoot refuses an FS root given as "", which would mean /; an
// empty FS_ROOT is unset, as every variable.
func (c *config) checkFSRoot() error {
	if c.isSet("fs_root") && c.raw("fs_root") == "" {
		return c.bad("fs_root", "must not be empty (use / for this machine's root)")
	}
	return nil
}

// fsRoot is fs_root, else this machine's (pkgstore.DefaultFSRoot).
func (c *config) fsRoot() string {
	if r := c.raw("fs_root"); r != "" {
		return r
	}
	return hostFSRoot(c.lookup)
}

func hostFSRoot(lookup func(string) (string, bool)) string {
	r, _ := pkgstore.DefaultFSRoot(runtime.GOOS, func(k string) string {
		if k == "FS_ROOT" {
			return "" // fs_root's own source, already read
		}
		v, _ := lookup(k)
		return v
	})
	return r
}

// openStore validates the scan options, then opens the store.
func (c *config) openStore() (*pkgstore.Store, pkgstore.Options, error) {
	opts, err := c.scanOptions()
	if err != nil {
		return nil, opts, err
	}
	st, err := c.open()
	return st, opts, err
}

// open opens the store; a missing one is a usage error naming where its
// FS root came from.
func (c *config) open() (*pkgstore.Store, error) {
	root := c.fsRoot()
	st, err := pkgstore.Open(root)
	if err != nil {
		if errors.Is(err, pkgstore.ErrNoStore) {
			return nil, usageError{fmt.Errorf("%v (FS root from %s)%s", err, c.source("fs_root"), fsRootHint(root))}
		}
		return nil, err
	}
	return st, nil
}

// fsRootHint suggests the FS root when root names the store or its hab.
func fsRootHint(root string) string {
	clean := filepath.Clean(root)
	for _, tail := range []string{filepath.Join("hab", "pkgs"), "hab"} {
		if clean == tail || strings.HasSuffix(clean, string(filepath.Separator)+tail) {
			fs := filepath.Dir(clean)
			if tail != "hab" {
				fs = filepath.Dir(fs)
			}
			return fmt.Sprintf("; did you mean --fs-root %s? The store is FS_ROOT/hab/pkgs", fs)
		}
	}
	return ""
}

// scanOptions are target, HAB_BINLINK_DIR and install_window's options.
func (c *config) scanOptions() (pkgstore.Options, error) {
	set := pkgstore.ScanSettings{Target: c.raw("target")}
	set.BinlinkDir, _ = c.lookup("HAB_BINLINK_DIR")
	if c.isSet("install_window") {
		w := c.raw("install_window")
		if d, err := retention.ParseDuration(w, -1); err == nil && d == 0 {
			return pkgstore.Options{}, c.bad("install_window", "0 is no window: leave it out for the default (1h); there is no none, installs in progress are always protected")
		}
		set.InstallWindow = &w
	}
	o, err := set.Options(c.fsRoot())
	switch {
	case errors.Is(err, pkgstore.ErrTargetAmbiguous):
		return o, usageError{fmt.Errorf("which target Habitat runs as is unknown: %v; set it with --target (HAB_GC_TARGET, config key target)", err)}
	case errors.Is(err, pkgstore.ErrUnknownTarget):
		return o, c.bad("target", fmt.Sprintf("not a Habitat package target (one of %s)", strings.Join(pkgstore.KnownTargets(), ", ")))
	case errors.Is(err, pkgstore.ErrBadInstallWindow):
		return o, c.bad("install_window", "must be a duration such as 10m or 2h (leave it out for the default, 1h); installs in progress cannot go unprotected, so there is no none")
	}
	return o, err
}
